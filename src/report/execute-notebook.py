#!/usr/bin/python3
"""Executes one Jupyter notebook cell by cell with nbclient (Debian: python3-nbclient).

usage: execute-notebook.py SRC DST TIMEOUT_S KERNEL

Writes the executed notebook to DST (through a temporary file and a rename) only
when every cell succeeded, and prints one JSON object on stdout:
  {"ok": true, "cells": N}
  {"ok": false, "cell": I, "source": "...", "error": "...", "stderr": "..."}
Called by src/report/notebooks.ts; cell timing metadata is not recorded so that
the written notebook only changes when its outputs do.
"""
import json
import os
import sys

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError


def text_of(outputs, stream):
    parts = []
    for o in outputs:
        if o.get("output_type") == "stream" and o.get("name") == stream:
            t = o.get("text", "")
            parts.append("".join(t) if isinstance(t, list) else t)
        if o.get("output_type") == "error":
            parts.append(f"{o.get('ename', '')}: {o.get('evalue', '')}")
    return "".join(parts)


def main():
    src, dst, timeout, kernel = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    nb = nbformat.read(src, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name=kernel,
        allow_errors=False,
        record_timing=False,
        resources={"metadata": {"path": os.path.dirname(os.path.abspath(src))}},
    )
    index = -1
    try:
        with client.setup_kernel():
            # As nbclient's own execute() does: record the kernel's language (for highlighting).
            info = client.wait_for_reply(client.kc.kernel_info())
            if info and "language_info" in info.get("content", {}):
                nb.metadata["language_info"] = info["content"]["language_info"]
            for index, cell in enumerate(nb.cells):
                client.execute_cell(cell, index)
    except (CellExecutionError, CellTimeoutError, DeadKernelError) as e:
        cell = nb.cells[index] if 0 <= index < len(nb.cells) else {"source": "", "outputs": []}
        if isinstance(e, CellExecutionError):
            error = f"{e.ename}: {e.evalue}".strip(": ").strip()
        elif isinstance(e, CellTimeoutError):
            error = f"timed out after {timeout} s"
        else:
            error = f"the kernel died: {e}"
        print(json.dumps({
            "ok": False,
            "cell": index,
            "source": cell.get("source", ""),
            "error": error,
            "stderr": text_of(cell.get("outputs", []), "stderr"),
        }))
        return 0
    tmp = f"{dst}.tmp-{os.getpid()}"
    nbformat.write(nb, tmp)
    os.replace(tmp, dst)
    print(json.dumps({"ok": True, "cells": len(nb.cells)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
