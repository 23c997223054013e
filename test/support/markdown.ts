/**
 * Markdown as GitHub renders it, for the docs tests: the anchors a page's headings get (GitHub's
 * slug rules) and the links a page holds, code blocks and code spans left out of both.
 */

/** A link or image of a page: its target as written, and the line it is on. */
export interface MarkdownLink {
  target: string;
  line: number;
}

/** A heading of a page: its level (1 to 6), its text as written, and its anchor. */
export interface MarkdownHeading {
  level: number;
  text: string;
  anchor: string;
}

/** The page with each line of a fenced code block blanked, so line numbers stay. */
export function withoutCodeBlocks(markdown: string): string {
  let fence: string | undefined;
  return markdown
    .split("\n")
    .map((line) => {
      const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === undefined && marker) fence = marker;
      else if (fence !== undefined && marker?.startsWith(fence[0]!) && marker.length >= fence.length && line.trim() === marker) fence = undefined;
      else if (fence === undefined) return line;
      return "";
    })
    .join("\n");
}

/** The text a heading renders to: links by their text, emphasis and code marks and HTML tags gone. */
function renderedText(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/[`*]/g, "")
    .trim();
}

/**
 * GitHub's anchor for a heading's text (github-slugger): lower case, every character that is not a
 * letter, digit, mark, connector (`_`), space or hyphen removed, each space a hyphen.
 */
export function githubSlug(heading: string): string {
  return renderedText(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** The page's ATX headings outside code blocks, with anchors made unique as GitHub does (`-1`, `-2`, …). */
export function headings(markdown: string): MarkdownHeading[] {
  const seen = new Map<string, number>();
  return [...withoutCodeBlocks(markdown).matchAll(/^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/gm)].map(([, marks, text]) => {
    const slug = githubSlug(text!);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    return { level: marks!.length, text: text!.trim(), anchor: count === 0 ? slug : `${slug}-${count}` };
  });
}

/** The section under the heading `text`: from its line to the next heading of its level or above (code blocks kept). */
export function section(markdown: string, text: string): string | undefined {
  const lines = markdown.split("\n");
  const plain = withoutCodeBlocks(markdown).split("\n");
  const level = (line: string): number => /^ {0,3}(#{1,6})[ \t]/.exec(line)?.[1]?.length ?? 0;
  const start = plain.findIndex((line) => level(line) > 0 && line.replace(/^ {0,3}#{1,6}[ \t]+/, "").trim() === text);
  if (start < 0) return undefined;
  const own = level(plain[start]!);
  const end = plain.findIndex((line, i) => i > start && level(line) > 0 && level(line) <= own);
  return lines.slice(start, end < 0 ? undefined : end).join("\n");
}

/** The targets of the page's inline links and images and of its link definitions, outside code. */
export function links(markdown: string): MarkdownLink[] {
  return withoutCodeBlocks(markdown)
    .split("\n")
    .flatMap((text, index) => {
      const line = text.replace(/`+[^`]*`+/g, "");
      const inline = [...line.matchAll(/\]\(\s*(?:<([^>]*)>|([^)\s]+))(?:\s+"[^"]*")?\s*\)/g)].map((m) => (m[1] ?? m[2])!);
      const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line)?.[1];
      return [...inline, ...(definition ? [definition] : [])].map((target) => ({ target, line: index + 1 }));
    });
}

/** A fenced code block of a page: its info string's language, and its lines without the fence's indentation. */
export interface FencedBlock {
  language: string;
  body: string;
}

/**
 * The page's fenced code blocks in order, those nested in a list item included: each line loses
 * the indentation of its opening fence (a list item's), so the body is the code as written.
 */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: { indent: number; fence: string; language: string; lines: string[] } | undefined;
  for (const line of markdown.split("\n")) {
    const marker = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)\s*$/.exec(line);
    if (open === undefined) {
      if (marker) open = { indent: marker[1]!.length, fence: marker[2]!, language: marker[3]!, lines: [] };
      continue;
    }
    if (marker && marker[2]!.startsWith(open.fence[0]!) && marker[2]!.length >= open.fence.length && marker[3] === "") {
      blocks.push({ language: open.language, body: open.lines.join("\n") });
      open = undefined;
      continue;
    }
    open.lines.push(line.slice(Math.min(open.indent, /^\s*/.exec(line)![0].length)));
  }
  return blocks;
}
