/**
 * A driver's row schema, written once: an object of columns (in CSV order), each with its type
 * (a phantom, for the compiler) and whether it is a CSV column. The row type is derived from it
 * (`RowOf`), the CSV header and cells too (`schemaCsv`, through the one CSV dialect), so a field
 * added to the schema is in the type and in rows.csv, and nowhere else to forget.
 */
import { toCsv } from "../util/csv.js";

export interface Column<T, Opt extends boolean = false> {
  /** In rows.csv (nested or optional diagnostics are in rows.json only). */
  readonly csv: boolean;
  readonly optional: Opt;
  /** Never set: carries the column's type. */
  readonly type?: T;
}

/** A required column of type T. */
export const col = <T>(): Column<T> => ({ csv: true, optional: false });
/** A key that may be absent from a row (older records, or set only in some runs); rows.json only. */
export const optional = <T>(): Column<T, true> => ({ csv: false, optional: true });

export type Schema = Record<string, Column<unknown, boolean>>;

type Required<S extends Schema> = { [K in keyof S as S[K] extends Column<unknown, false> ? K : never]: S[K] extends Column<infer T, boolean> ? T : never };
type Optional<S extends Schema> = { [K in keyof S as S[K] extends Column<unknown, true> ? K : never]?: S[K] extends Column<infer T, boolean> ? T : never };
type Flat<T> = { [K in keyof T]: T[K] };

/** The row type a schema describes. */
export type RowOf<S extends Schema> = Flat<Required<S> & Optional<S>>;

/** The schema's CSV columns, in order. */
export function csvColumns(schema: Schema): string[] {
  return Object.entries(schema).filter(([, c]) => c.csv).map(([k]) => k);
}

/** Rows as CSV: the schema's CSV columns, header first. */
export function schemaCsv(schema: Schema, rows: readonly object[]): string {
  return toCsv(csvColumns(schema), rows);
}
