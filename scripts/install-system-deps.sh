#!/usr/bin/env bash
# Installs the Debian packages toolgauge's Python sandbox needs: the third-party modules ToolHop's dataset tools
# import (pure-Python ones are loaded into pyodide read-only; numpy only works in the CPython backend).
# python3-jinja2 and chromium are only for the tests: the chat-template engine is checked differentially against
# jinja2, and the SVG charts are opened in headless Chromium to check that data in them stays text.
# Idempotent: does nothing when every package is already installed. Needs root (or sudo) and Debian's mirrors.
set -euo pipefail
PACKAGES=(python3 python3-tz python3-dateutil python3-babel python3-holidays python3-roman python3-dicttoxml python3-sympy python3-numpy tzdata python3-jinja2 chromium)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "system packages: all present (${#PACKAGES[@]})"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "system packages: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "system packages: installed ${#missing[@]}"
