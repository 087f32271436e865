#!/bin/sh
# Fails if libhcl or any driver module has a vendor runtime among its DT_NEEDED entries: the core and the
# drivers must open vendor runtimes with dlopen only (docs/architecture.md, "Loading").
# Usage: check-no-vendor-links.sh LIBDIR
set -u
libdir=${1:?usage: check-no-vendor-links.sh LIBDIR}
vendor='libOpenCL|libcuda|libnvrtc|libcublas|libamdhip64|libhiprtc|libze_loader|libclblast|libopenblas|libpocl'
status=0
count=0
for f in "$libdir"/libhcl.so "$libdir"/libhcl-*.so; do
  [ -e "$f" ] || continue
  count=$((count + 1))
  needed=$(readelf -d "$f" | awk '/NEEDED/ {gsub(/[\[\]]/, "", $5); print $5}' | tr '\n' ' ')
  bad=$(echo "$needed" | tr ' ' '\n' | grep -E "^($vendor)" || true)
  if [ -n "$bad" ]; then
    echo "FAIL $f links a vendor library: $bad"
    status=1
  else
    echo "ok   $f needs only: $needed"
  fi
done
if [ "$count" -eq 0 ]; then
  echo "FAIL no libhcl.so in $libdir"
  exit 1
fi
exit $status
