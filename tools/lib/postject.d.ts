/** The one function of postject (which ships no types) that tools/build-plugin-binary.js calls. */
declare module "postject" {
  /** Writes `resourceData` into the executable `filename` as the resource `resourceName`, and flips the sentinel fuse. */
  export function inject(
    filename: string,
    resourceName: string,
    resourceData: Buffer,
    options?: { machoSegmentName?: string | undefined; overwrite?: boolean | undefined; sentinelFuse?: string | undefined },
  ): Promise<void>;
}
