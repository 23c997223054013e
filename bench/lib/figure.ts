/** The unit every scenario reports: one figure beside its target. */

/** One reported figure beside its target. */
export interface Figure {
  /** Scenario letter (A-E) or M for memory. */
  scenario: string;
  /** What is measured. */
  name: string;
  /** The figure as shown. */
  value: string;
  /** The target as shown ("–" for figures without one). */
  target: string;
  /** Whether it meets the target; "info" when there is none. */
  status: "pass" | "miss" | "info";
}
