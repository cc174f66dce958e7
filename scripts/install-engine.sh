#!/usr/bin/env bash
# npm run setup:engine: node-llama-cpp (llama.cpp for Node), needed only for gguf: models and `toolgauge serve`.
# It is installed into .engine/ beside the checkout, not into node_modules: a plain `npm ci` never downloads it
# (its GPU builds weigh ~700 MB), and installing it with --omit=optional inside the repository would remove the
# repository's own optional packages (rollup's native build, which Vitest needs). Only the CPU build for this
# platform is installed (~83 MB on linux-x64). harness/engine/resolve.ts finds it there.
set -euo pipefail
cd "$(dirname "$0")/.."

version=3.21.1
case "$(node -p 'process.platform + "-" + process.arch')" in
  linux-x64) build=linux-x64 ;;
  linux-arm64) build=linux-arm64 ;;
  linux-arm) build=linux-armv7l ;;
  darwin-arm64) build=mac-arm64-metal ;;
  darwin-x64) build=mac-x64 ;;
  win32-x64) build=win-x64 ;;
  win32-arm64) build=win-arm64 ;;
  *) echo "install-engine: no prebuilt llama.cpp for $(node -p 'process.platform + "-" + process.arch'); install node-llama-cpp@$version yourself" >&2; exit 1 ;;
esac

dir=.engine
mkdir -p "$dir"
[ -f "$dir/package.json" ] || printf '{\n  "name": "toolgauge-engine",\n  "private": true\n}\n' > "$dir/package.json"
# NODE_LLAMA_CPP_SKIP_DOWNLOAD: never fall back to building llama.cpp from source at install time.
NODE_LLAMA_CPP_SKIP_DOWNLOAD=true npm install --prefix "$dir" --no-audit --no-fund --omit=optional --save-exact \
  "node-llama-cpp@$version" "@node-llama-cpp/$build@$version"
echo "install-engine: node-llama-cpp $version ($build) in $dir/node_modules"
