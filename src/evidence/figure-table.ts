/** FIGURES: every entry of the figure check, the parts in order (see src/evidence/figures.ts). */
import type { FigureEntry } from "./figure-types.js";
import { HOST_FIGURES } from "./figures-host.js";
import { VM_FIGURES } from "./figures-vm.js";
import { MECHANISM_FIGURES } from "./figures-mechanism.js";
import { INTEGER_FIGURES } from "./figures-integers.js";
import { pgBundleFigures } from "./figures-bundle.js";

export const FIGURES: FigureEntry[] = [
  ...HOST_FIGURES,
  ...VM_FIGURES,
  ...MECHANISM_FIGURES,
  // §5: the PostgreSQL bundle's real-time record on this machine (slicelab import of its results).
  ...pgBundleFigures(),
  // Passages whose integers are checked too (src/evidence/figures-integers.ts).
  ...INTEGER_FIGURES,
];
