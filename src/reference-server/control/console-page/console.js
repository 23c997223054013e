// @ts-check
/**
 * The reference server's console. Follows /_reference/console/events (a new state whenever the
 * server's changed) and renders it; the fault switches and the saved-state buttons call the
 * inspection routes. Every value from the server goes into the page as text, never as markup.
 */
"use strict";

/**
 * @typedef {import("../console").ConsoleState} ConsoleState
 * @typedef {ConsoleState["organizations"][number]} Organization
 * @typedef {Organization["dataSources"][number]} DataSource
 * @typedef {NonNullable<DataSource["tables"]>[number]} Table
 * @typedef {ConsoleState["requests"]["recent"][number]} RequestEntry
 * @typedef {ConsoleState["faults"]} FaultsView
 * @typedef {FaultsView["settings"]} FaultSettings
 * @typedef {ConsoleState["savedStates"][number]} SavedState
 * @typedef {import("../faults").FaultRoute} FaultRoute
 * @typedef {import("../faults").RouteFaults} RouteFaults
 * @typedef {{ key: "failNext" | "rateLimitNext" | "latencyMs", on: number, label: string }} SwitchDef
 */

/** Switches of each create route: each sets one counter of that route's fault settings. @type {SwitchDef[]} */
const ROUTE_SWITCHES = [
  { key: "failNext", on: 1, label: "Fail the next request (503)" },
  { key: "rateLimitNext", on: 1, label: "Rate-limit the next request (429)" },
];

/** Switches of every route at once (the top level of the fault settings). @type {SwitchDef[]} */
const GLOBAL_SWITCHES = [{ key: "latencyMs", on: 1000, label: "Delay every request by 1 s" }];

/** The scope name of the top-level switches. */
const EVERY_ROUTE = "every-route";

/** @type {ConsoleState | undefined} */
let state;

/** The JSON of each part as last drawn, so a part is redrawn only when it changed (and keeps focus otherwise). */
const drawn = { organizations: "", requests: "", faults: "", savedStates: "" };

/** @param {string} id */
function byId(id) {
  const element = document.getElementById(id);
  if (element === null) throw new Error(`the page has no #${id}`);
  return element;
}

/**
 * An element with text or children.
 * @param {string} tag
 * @param {{ className?: string, text?: string, attrs?: Record<string, string> }} [props]
 * @param {Array<Node | string>} [children]
 */
function el(tag, props = {}, children = []) {
  const element = document.createElement(tag);
  if (props.className) element.className = props.className;
  for (const [name, value] of Object.entries(props.attrs ?? {})) element.setAttribute(name, value);
  if (props.text !== undefined) element.textContent = props.text;
  element.append(...children);
  return element;
}

/** A JSON value as text: strings as they are, lists and objects item by item, the rest as JSON. @param {unknown} value @returns {string} */
function shown(value) {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.length === 0 ? "[]" : value.map(shown).join(", ");
  if (value !== null && typeof value === "object")
    return Object.entries(value)
      .map(([k, v]) => `${k} ${shown(v)}`)
      .join(", ");
  return JSON.stringify(value);
}

/** The time of an ISO 8601 timestamp, UTC, to the millisecond. @param {string} iso */
function timeOf(iso) {
  return iso.slice(11, 23);
}

/** @param {number} n @param {string} noun */
function count(n, noun) {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

/** A definition list of every field of `fields`, null ones marked as such. @param {Record<string, unknown>} fields */
function fieldList(fields) {
  return el(
    "dl",
    { className: "fields" },
    Object.entries(fields).map(([name, value]) =>
      el("div", { className: "field", attrs: { "data-field": name } }, [
        el("dt", { text: name }),
        el("dd", { className: value === null ? "null" : "", text: shown(value) }),
      ]),
    ),
  );
}

/** The sync and health badges of a data source. @param {DataSource} ds */
function statusLine(ds) {
  return el("p", { className: "status" }, [
    el("span", { className: "badge", attrs: { "data-status": ds.lastSyncStatus, "data-live": "sync" }, text: `Sync ${ds.lastSyncStatus}` }),
    el("span", { className: "badge", attrs: { "data-status": ds.lastHealthStatus, "data-live": "health" }, text: `Health ${ds.lastHealthStatus}` }),
  ]);
}

/** Each secret field as set or not set: the server never sends a value. @param {DataSource} ds */
function secretList(ds) {
  const fields = (state?.secretFields ?? []).map((name) => {
    const set = ds.providedSecretFields.includes(name);
    return el("div", { className: "field", attrs: { "data-secret": name } }, [
      el("dt", { text: name }),
      el("dd", { className: set ? "set" : "null", text: set ? "set" : "not set" }),
    ]);
  });
  const held = ds.credentialsAvailable ? "held in memory" : "gone (the server restarted)";
  return [
    el("p", { className: "label", text: `Secret fields (values never leave the server; credentials ${held})` }),
    el("dl", { className: "fields secrets" }, fields),
  ];
}

/** The tables the last successful sync found. @param {Table[] | null} tables */
function tableList(tables) {
  if (tables === null) return el("p", { className: "label", text: "Tables: none synced yet" });
  const items = tables.map((t) => el("li", { text: `${t.schema}.${t.name}: ${t.columns.map((c) => `${c.name} ${c.type}`).join(", ")}` }));
  return el("div", {}, [el("p", { className: "label", text: `Tables (${tables.length})` }), el("ul", { className: "tables" }, items)]);
}

/** @param {DataSource} ds */
function dataSourceCard(ds) {
  const { tables, providedSecretFields, credentialsAvailable, ...fields } = ds;
  return el("article", { className: "data-source", attrs: { "aria-labelledby": `ds-${ds.id}`, "data-data-source": ds.id } }, [
    el("h4", { attrs: { id: `ds-${ds.id}` }, text: ds.displayName }),
    statusLine(ds),
    fieldList(fields),
    ...secretList(ds),
    tableList(tables),
  ]);
}

/** @param {Organization} org */
function organizationCard(org) {
  const { dataSources, ...fields } = org;
  const sources = dataSources.length === 0 ? [el("p", { className: "empty", text: "No data source yet." })] : dataSources.map(dataSourceCard);
  return el("article", { className: "organization", attrs: { "aria-labelledby": `org-${org.id}`, "data-organization": org.id } }, [
    el("h3", { attrs: { id: `org-${org.id}` }, text: org.name }),
    fieldList(fields),
    ...sources,
  ]);
}

/** @param {Organization[]} organizations */
function drawOrganizations(organizations) {
  const cards =
    organizations.length === 0
      ? [el("p", { className: "empty", text: "No organization yet: run pulumi up against this server." })]
      : organizations.map(organizationCard);
  byId("organizations").replaceChildren(...cards);
}

/** @param {RequestEntry} entry */
function requestRow(entry) {
  const failed = entry.status === null || entry.status >= 400;
  return el("tr", { className: failed ? "failed" : "" }, [
    el("td", { text: timeOf(entry.receivedAt) }),
    el("td", { text: entry.method }),
    el("td", { className: "path", text: entry.path }),
    el("td", { className: "status-code", text: entry.status === null ? "no answer" : String(entry.status) }),
    el("td", { className: entry.faults.length === 0 ? "null" : "fault", text: entry.faults.length === 0 ? "none" : entry.faults.join(", ") }),
    el("td", { className: "number", text: `${entry.durationMs} ms` }),
  ]);
}

/** @param {ConsoleState["requests"]} requests */
function drawRequests(requests) {
  const { total, recent } = requests;
  byId("request-summary").textContent =
    total === 0
      ? "No API request yet."
      : `${count(total, "API request")} received${recent.length < total ? `; the latest ${recent.length} below` : ""}, newest first.`;
  byId("requests")
    .querySelector("tbody")
    ?.replaceChildren(...recent.map(requestRow));
}

/**
 * The settings object a switch of `scope` (a route, or every route) reads and writes.
 * @param {FaultSettings} settings @param {string} scope @returns {RouteFaults}
 */
function scopeOf(settings, scope) {
  if (scope === EVERY_ROUTE) return settings;
  settings.routes ??= {};
  return (settings.routes[/** @type {FaultRoute} */ (scope)] ??= {});
}

/** @param {unknown} value */
function isOn(value) {
  return typeof value === "number" && value > 0;
}

/** @param {string} scope @param {SwitchDef} def */
function switchButton(scope, def) {
  const button = el(
    "button",
    { className: "switch", attrs: { type: "button", role: "switch", "aria-checked": "false", "data-scope": scope, "data-key": def.key } },
    [el("span", { className: "track", attrs: { "aria-hidden": "true" } }), el("span", { text: def.label }), el("span", { className: "count" })],
  );
  button.addEventListener("click", () => void toggleFault(scope, def));
  return button;
}

/** @param {string} scope @param {string} title @param {string} detail @param {SwitchDef[]} switches */
function switchGroup(scope, title, detail, switches) {
  const heading = `faults-${scope}`;
  return el("div", { className: "switch-group", attrs: { role: "group", "aria-labelledby": heading } }, [
    el("h3", { attrs: { id: heading }, text: title }),
    el("p", { className: "route", text: detail }),
    ...switches.map((def) => switchButton(scope, def)),
  ]);
}

/** The switches, made once from the routes the server names. @param {ConsoleState["faultRoutes"]} routes */
function buildSwitches(routes) {
  const box = byId("fault-switches");
  if (box.childElementCount > 0) return;
  box.append(
    switchGroup(EVERY_ROUTE, "Every route", "Both creates", GLOBAL_SWITCHES),
    ...routes.map((route) => switchGroup(route.id, route.id, `${route.method} ${route.pattern}`, ROUTE_SWITCHES)),
  );
}

/** @param {FaultsView} faults */
function drawFaults(faults) {
  for (const button of byId("fault-switches").querySelectorAll("button[role=switch]")) {
    const scope = button.getAttribute("data-scope") ?? "";
    const key = button.getAttribute("data-key") ?? "";
    const def = [...ROUTE_SWITCHES, ...GLOBAL_SWITCHES].find((d) => d.key === key);
    const value = def && scopeOf(structuredClone(faults.settings), scope)[def.key];
    button.setAttribute("aria-checked", String(isOn(value)));
    const counter = button.querySelector(".count");
    if (counter) counter.textContent = isOn(value) && value !== def?.on ? ` (${shown(value)}${key === "latencyMs" ? " ms" : " left"})` : "";
  }
  const i = faults.injected;
  byId("faults-injected").textContent =
    `Injected so far: ${count(i.latency ?? 0, "delay")}, ${count(i.error ?? 0, "error")}, ` +
    `${count(i.rateLimited ?? 0, "rate limit")}, ${count((i.resetBeforeCommit ?? 0) + (i.resetAfterCommit ?? 0), "connection reset")}.`;
}

/** @param {SavedState} savedState */
function savedStateRow(savedState) {
  const restore = el("button", { attrs: { type: "button", "aria-label": `Restore saved state ${savedState.name}` }, text: "Restore" });
  restore.addEventListener("click", () => void restoreSavedState(savedState.name));
  const remove = el("button", { className: "quiet", attrs: { type: "button", "aria-label": `Delete saved state ${savedState.name}` }, text: "Delete" });
  remove.addEventListener("click", () => void deleteSavedState(savedState.name));
  const holds = `saved ${timeOf(savedState.savedAt)} UTC: ${count(savedState.organizations, "organization")}, ${count(savedState.dataSources, "data source")}`;
  return el("tr", {}, [
    el("td", {}, [el("div", { className: "saved-state-name", text: savedState.name }), el("div", { className: "saved-state-detail", text: holds })]),
    el("td", { className: "actions" }, [restore, remove]),
  ]);
}

/** @param {SavedState[]} savedStates */
function drawSavedStates(savedStates) {
  const table = byId("saved-states");
  table.hidden = savedStates.length === 0;
  byId("saved-states-empty").hidden = savedStates.length > 0;
  table.querySelector("tbody")?.replaceChildren(...savedStates.map(savedStateRow));
}

/**
 * Redraws the parts of the page whose data changed.
 * @param {ConsoleState} next
 */
function render(next) {
  state = next;
  buildSwitches(next.faultRoutes);
  /** @type {Array<[keyof typeof drawn, unknown, (value: any) => void]>} */
  const parts = [
    ["organizations", next.organizations, drawOrganizations],
    ["requests", next.requests, drawRequests],
    ["faults", next.faults, drawFaults],
    ["savedStates", next.savedStates, drawSavedStates],
  ];
  for (const [name, value, draw] of parts) {
    const json = JSON.stringify(value);
    if (drawn[name] === json) continue;
    drawn[name] = json;
    draw(value);
  }
}

/** Shows `text` in the status line `id`. @param {string} id @param {string} text @param {boolean} [failed] */
function say(id, text, failed = false) {
  const line = byId(id);
  line.textContent = text;
  line.classList.toggle("error", failed);
}

/**
 * Calls an inspection route; resolves with its `data`, or undefined after saying what went wrong in `messageId`.
 * @param {string} method @param {string} url @param {unknown} body @param {string} messageId
 * @returns {Promise<any>}
 */
async function call(method, url, body, messageId) {
  try {
    const init = body === undefined ? { method } : { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
    const res = await fetch(url, init);
    const json = await res.json();
    if (res.ok) return json.data;
    say(messageId, `${json.error?.title ?? res.status}: ${json.error?.detail ?? "the server refused"}`, true);
  } catch (error) {
    say(messageId, `The server did not answer (${error instanceof Error ? error.message : String(error)}).`, true);
  }
  return undefined;
}

/** Reads the state at once (after an action, rather than wait for the next event). */
async function refresh() {
  const next = await call("GET", "console/state", undefined, "faults-message");
  if (next) render(next);
}

/** @param {FaultSettings} settings @param {string} done */
async function setFaults(settings, done) {
  const view = await call("POST", "faults", settings, "faults-message");
  if (!view || !state) return;
  render({ ...state, faults: view });
  say("faults-message", done);
}

/** @param {string} scope @param {SwitchDef} def */
async function toggleFault(scope, def) {
  if (!state) return;
  const settings = structuredClone(state.faults.settings);
  const target = scopeOf(settings, scope);
  const on = !isOn(target[def.key]);
  if (on) target[def.key] = def.on;
  else delete target[def.key];
  for (const [route, rules] of Object.entries(settings.routes ?? {}))
    if (Object.keys(rules).length === 0) delete settings.routes?.[/** @type {FaultRoute} */ (route)];
  if (settings.routes && Object.keys(settings.routes).length === 0) delete settings.routes;
  await setFaults(settings, `${scope === EVERY_ROUTE ? "Every route" : scope}: “${def.label}” is ${on ? "on" : "off"}.`);
}

/** @param {SubmitEvent} event */
async function saveState(event) {
  event.preventDefault();
  const input = /** @type {HTMLInputElement} */ (byId("saved-state-name"));
  const info = await call("POST", "saved-states", { name: input.value.trim() }, "saved-state-message");
  if (!info) return;
  input.value = "";
  say("saved-state-message", `Saved the state as “${info.name}”: ${count(info.organizations, "organization")}, ${count(info.dataSources, "data source")}.`);
  await refresh();
}

/** @param {string} name */
async function restoreSavedState(name) {
  const info = await call("POST", `saved-states/${encodeURIComponent(name)}/restore`, undefined, "saved-state-message");
  if (!info) return;
  say("saved-state-message", `Restored the saved state “${name}”.`);
  await refresh();
}

/** @param {string} name */
async function deleteSavedState(name) {
  const info = await call("DELETE", `saved-states/${encodeURIComponent(name)}`, undefined, "saved-state-message");
  if (!info) return;
  say("saved-state-message", `Deleted the saved state “${name}”.`);
  byId("saved-state-name").focus();
  await refresh();
}

/** @param {"live" | "lost"} kind @param {string} text */
function setConnection(kind, text) {
  const line = byId("connection");
  if (line.getAttribute("data-state") === kind) return;
  line.setAttribute("data-state", kind);
  line.textContent = text;
}

/** Follows the server's events; EventSource reconnects by itself after a lost connection. */
function follow() {
  const events = new EventSource("console/events");
  events.onopen = () => setConnection("live", "Live");
  events.onmessage = (message) => {
    setConnection("live", "Live");
    render(JSON.parse(message.data));
  };
  events.onerror = () => setConnection("lost", "Connection lost: retrying…");
}

byId("saved-state-form").addEventListener("submit", (event) => void saveState(/** @type {SubmitEvent} */ (event)));
byId("faults-clear").addEventListener("click", () => void setFaults({}, "Every fault is off."));
follow();
