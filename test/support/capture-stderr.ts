/** Collects what this process writes to stderr until restored: for tests of notices printed there. */
export function captureStderr(): { text(): string; restore(): void } {
  const chunks: string[] = [];
  const original = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  return { text: () => chunks.join(""), restore: () => void (process.stderr.write = original) };
}
