import type { ParserFormat } from "./formats.js";

/** Formats added by the lock-statistics work (issue 6); joined into the registry in formats.ts. */
export const extraFormats: ParserFormat[] = [];
