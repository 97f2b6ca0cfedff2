/** The shapes of the figure check: an entry (sentence, record, field), a measured region, a number that is not a measurement. */

export type Doc = "README.md" | "REPRODUCE.md";

export interface FigureEntry {
  doc: Doc;
  /** Words of the sentence around the figure, as written (markdown ** and line breaks ignored); they must contain `figure`. */
  sentence: string;
  /** The figure as written in the sentence ("−2.59%", "±4.28%", "p = 0.215", "755 s"). */
  figure: string;
  /** The record under data/ the figure comes from (repository-relative). */
  record: string;
  /** What of the record: a dotted JSON path, or a description when `value` computes it. */
  field: string;
  /** Computes the value from the record's text when it is not a JSON field as printed. */
  value?: (text: string, root: string) => number;
  /** Every record the value reads when it pools several (each must exist; `record` is one of them). */
  alsoReads?: string[];
}

/** A passage of measured results: from the first occurrence of `from` to the next occurrence of `to` (both as normalizeDoc gives them). */
export interface MeasuredRegion {
  doc: Doc;
  from: string;
  to: string;
  /** Integers count as measured-looking here too (dates, times, versions and code spans excepted). */
  integers?: boolean;
}

/** Numbers inside measured regions that are not measurements: the words around them and why. */
export interface NotMeasured {
  doc: Doc;
  sentence: string;
  figure: string;
  why: string;
}
