#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Regenerate the build system from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
autoreconf --install --force
