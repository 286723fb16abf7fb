#!/bin/sh
# The source tree keeps its layering (scripts/check-layers): no folder
# includes a layer its README's Uses: line leaves out, no include cycles.
# Run by `make check` with SRC_DIR set.
SRC_DIR=${SRC_DIR:-src}
exec python3 "$SRC_DIR/../scripts/check-layers" "$SRC_DIR"
