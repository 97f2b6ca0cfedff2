/**
 * The one UTC stamp format of the kit, YYYYMMDDTHHMMSSZ (20261201T181553Z): record
 * directories (data/runs/<study>/<stamp>/), VM run directories, work directories.
 */
export const STAMP_RE = /^\d{8}T\d{6}Z$/;

export function utcStamp(d = new Date()): string {
  return d.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
}
