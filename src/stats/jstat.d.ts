// Minimal types for the part of jStat (npm "jstat", no published types) that src/stats uses.
declare module "jstat" {
  interface NoncentralT {
    cdf(x: number, dof: number, ncp: number): number;
    pdf(x: number, dof: number, ncp: number): number;
  }
  const jStat: { noncentralt: NoncentralT };
  export default jStat;
}
