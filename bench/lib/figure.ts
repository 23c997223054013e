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
  /**
   * Whether it meets the target; "info" when there is none; "retired" when the target no longer
   * applies (it measured the machine rather than the package: bench/analysis.md says why).
   */
  status: "pass" | "miss" | "info" | "retired";
}

/** How each status shows in a report's table. */
export const STATUS_MARK: Record<Figure["status"], string> = { pass: "✅ pass", miss: "❌ miss", info: "info", retired: "retired (see analysis)" };
