#!/bin/sh
# Installs Debian's chromium-headless-shell for the browser tests (tests/browser_test.ts) unless
# it is there already. WebGPU runs on the SwiftShader it bundles, so no GPU driver is needed.
set -eu
[ -x /usr/bin/chromium-headless-shell ] && exit 0
if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
$SUDO apt-get update -qq
# DejaVu: the web example's screenshot needs a font.
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  chromium-headless-shell fonts-dejavu-core
