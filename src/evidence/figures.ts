/**
 * Measured figures of README.md and REPRODUCE.md, each read back from the record under data/ it
 * comes from. One table (FIGURES) lists (sentence, record, field); one list (MEASURED_REGIONS)
 * names the passages of measured results in which every measured-looking number (a decimal, a
 * percentage, an "N-fold") must have an entry, or be listed in NOT_MEASURED with the reason.
 *
 * The table is kept in parts, one per kind of record: figures-host.ts (REPRODUCE §3–§6 on this
 * machine), figures-vm.ts (§4–§6 in the kit's VM), figures-mechanism.ts (§8), figures-integers.ts
 * (passages whose integers are checked too); their record paths and readers are in
 * figure-readers.ts, the regions in figure-regions.ts, the checker in figure-check.ts;
 * figure-table.ts joins the parts into FIGURES.
 *
 * To add a passage: add its region, run `node --test dist/test/doc-figures.test.js`, and give every
 * number it reports an entry in the part it belongs to (or remove the number from the text).
 */
export type { Doc, FigureEntry, MeasuredRegion, NotMeasured } from "./figure-types.js";
export { FIGURES } from "./figure-table.js";
export { jsonField } from "./figure-readers.js";
export { MEASURED_REGIONS, NOT_MEASURED } from "./figure-regions.js";
export { checkEntry, entryValue, normalizeDoc, parseFigure, uncovered } from "./figure-check.js";
