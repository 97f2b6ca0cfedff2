/** Reading the columns a figure helper expects out of an Arquero table, with clear errors. */
import type { ColumnTable } from "arquero";

/** The tables figure helpers accept. */
export type Table = ColumnTable;

/** Column kinds a helper can require. */
export type ColumnKind = "number" | "string" | "boolean";

type Value<K extends ColumnKind> = K extends "number" ? number : K extends "string" ? string : boolean;

/**
 * The values of column `name` as an array, checked to be of `kind`. Throws an error
 * naming the figure helper, the column, the row and what was found, so a caller
 * that passes the wrong table learns which column to fix.
 */
export function column<K extends ColumnKind>(helper: string, table: Table, name: string, kind: K): Value<K>[] {
  if (!table.columnNames().includes(name)) {
    throw new Error(`${helper}: expected a column "${name}" (${kind}), found columns ${JSON.stringify(table.columnNames())}`);
  }
  const values = table.array(name) as unknown[];
  const out: Value<K>[] = [];
  values.forEach((v, i) => {
    const ok = kind === "number" ? typeof v === "number" && Number.isFinite(v) : typeof v === kind;
    if (!ok) {
      throw new Error(`${helper}: column "${name}" row ${i}: expected ${kind === "number" ? "a finite number" : `a ${kind}`}, found ${JSON.stringify(v)}`);
    }
    out.push(v as Value<K>);
  });
  return out;
}

/** Like {@link column} but returns undefined when the table lacks the column. */
export function optionalColumn<K extends ColumnKind>(helper: string, table: Table, name: string, kind: K): Value<K>[] | undefined {
  return table.columnNames().includes(name) ? column(helper, table, name, kind) : undefined;
}

/** Distinct values in order of first appearance (the stable order figures use unless told otherwise). */
export function distinct<T>(values: T[]): T[] {
  return [...new Set(values)];
}

/** `order` if given (checked against the data), else the values in order of first appearance. */
export function domainOf(helper: string, what: string, values: string[], order?: string[]): string[] {
  const present = distinct(values);
  if (order === undefined) return present;
  const missing = present.filter((v) => !order.includes(v));
  if (missing.length > 0) throw new Error(`${helper}: ${what} ${JSON.stringify(missing)} not in the given order ${JSON.stringify(order)}`);
  return order.filter((v) => present.includes(v));
}
