// Moved to src/record/provenance.ts (provenance is part of the record). This re-export stays only
// for src/postgres/hook-cost.ts, src/postgres/check-vm.ts and src/cli/commands/mechanism.ts, which
// other work edits at the same time; once they import ../record/provenance.js, delete this file.
export * from "../record/provenance.js";
