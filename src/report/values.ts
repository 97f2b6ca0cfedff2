/**
 * Key computed values a notebook records, so tests can compare them with the claims
 * ledger without scraping prose. A notebook calls `recordValue(name, value)`; the
 * value goes into the cell's outputs as display data of type {@link VALUE_MIME};
 * `recordedValues(notebook)` reads them back from an executed .ipynb.
 */

/** The MIME type of a recorded value's display data (text holding one JSON object). Not `…+json`: tslab sends strings. */
export const VALUE_MIME = "application/vnd.slicelab.value.v1";

/** A value recorded by a notebook. */
export interface RecordedValue {
  /** Dotted name, e.g. "rostedt-2023.without.mean". */
  name: string;
  value: number | string | boolean | null;
  /** The notebook it came from (file name), filled by {@link recordedValues}. */
  notebook?: string;
  /** 0-based index of the cell that recorded it. */
  cell?: number;
}

const NAME = /^[a-z0-9][a-z0-9_.-]*$/;

/** The display-data payload for a value (validated). */
export function valuePayload(name: string, value: RecordedValue["value"]): string {
  if (!NAME.test(name)) throw new Error(`recordValue: name must match ${NAME}, got ${JSON.stringify(name)}`);
  if (typeof value === "number" && !Number.isFinite(value)) throw new Error(`recordValue: ${name} is ${value}, expected a finite number`);
  return JSON.stringify({ name, value });
}

/** Minimal shape of an .ipynb file that this module reads. */
export interface NotebookJson {
  cells: {
    cell_type: string;
    source: string | string[];
    metadata?: Record<string, unknown>;
    outputs?: { output_type: string; data?: Record<string, unknown>; ename?: string; evalue?: string; traceback?: string[]; text?: string | string[] }[];
  }[];
  metadata?: Record<string, unknown>;
}

const joinText = (t: unknown): string => (Array.isArray(t) ? t.join("") : typeof t === "string" ? t : "");

/** Every value recorded in an executed notebook, in cell order. Throws on a malformed record. */
export function recordedValues(nb: NotebookJson, notebook?: string): RecordedValue[] {
  const out: RecordedValue[] = [];
  nb.cells.forEach((cell, i) => {
    for (const o of cell.outputs ?? []) {
      const raw = o.data?.[VALUE_MIME];
      if (raw === undefined) continue;
      const parsed = JSON.parse(joinText(raw)) as RecordedValue;
      if (typeof parsed.name !== "string" || !("value" in parsed)) {
        throw new Error(`${notebook ?? "notebook"}: cell ${i}: malformed ${VALUE_MIME} output ${joinText(raw)}`);
      }
      out.push({ name: parsed.name, value: parsed.value, notebook, cell: i });
    }
  });
  return out;
}

/**
 * Whether two recorded values are the same number or string: numbers equal to
 * about 12 significant digits (two correct computations of the same quantity may
 * differ in the last bits, e.g. (b/a − 1)·100 and (b − a)/a·100).
 */
export function sameRecordedValue(a: unknown, b: unknown): boolean {
  if (typeof a === "number" && typeof b === "number") return a === b || Math.abs(a - b) <= 1e-12 * Math.max(Math.abs(a), Math.abs(b));
  return a === b;
}

/**
 * Values of several notebooks by name; a name recorded twice with different values
 * is an error (two notebooks disagreeing about the same number).
 */
export function valuesByName(values: RecordedValue[]): Map<string, RecordedValue> {
  const map = new Map<string, RecordedValue>();
  for (const v of values) {
    const prev = map.get(v.name);
    if (prev && !sameRecordedValue(prev.value, v.value)) {
      throw new Error(`value "${v.name}" recorded as ${JSON.stringify(prev.value)} in ${prev.notebook} and as ${JSON.stringify(v.value)} in ${v.notebook}`);
    }
    map.set(v.name, v);
  }
  return map;
}
