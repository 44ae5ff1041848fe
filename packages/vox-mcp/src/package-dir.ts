/**
 * A path inside this package (packages/vox-mcp/, or node_modules/vox-mcp/).
 * Resolved from this module, which sits one level below the package root in
 * src/ (tests run through tsx), in dist/ (tsc's output) and as a bundle
 * (dist/*.cjs, whose import.meta.url is the bundle's): modules in the folders
 * below cannot use their own import.meta.url, whose depth differs between
 * the three.
 */
export function packageUrl(rel: string): URL {
  return new URL(`../${rel}`, import.meta.url);
}
