#!/usr/bin/env bash
# Artefacts read in place, side by side with extracting them first.
#
#   bench/artefacts.sh [PACKAGE]     (default libllvm19: a large .deb)
#
# 1. a large .deb (apt-get download PACKAGE):
#      abifloor scan X.deb
#      dpkg-deb -x X.deb DIR + abifloor scan DIR
#      dpkg-deb -x X.deb DIR + objdump -p on every file
#      the decompression alone: ar p X.deb data.tar.* | xz -dc (or zstd -dc)
# 2. an npm package with a native addon (npm pack): in place vs tar -x + scan
# 3. an OCI image layout whose layer is the .deb's files, gzip'd: in place
#    vs extracting the layer + scan
# 4. a tree with its artefacts (TREE, default /usr): bench/scan.sh, scan vs
#    find | xargs objdump -p vs scan --no-artefacts (issue 17 item 7)
# 5. peak RSS of each abifloor run.
#
# Wall times are medians (hyperfine); on a shared machine also compare the
# CPU times printed beside them. Needs hyperfine, jq, dpkg-deb, objdump,
# GNU time (/usr/bin/time); npm for part 2.
set -euo pipefail
pkg=${1:-libllvm19}
cd "$(dirname "$0")/.."
for tool in hyperfine jq dpkg-deb objdump apt-get /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench/artefacts.sh: $tool is not installed" >&2; exit 2; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
CGO_ENABLED=0 go build -o "$out/abifloor" ./cmd/abifloor
af="$out/abifloor"
rss() { /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1; }
cmp() { # name json: ratios of every command to abifloor (the first)
	jq -r '.results as $r | $r[] | "  \(.command): median \(.median*100|round/100) s, CPU \((.user+.system)*100|round/100) s, \((.median/$r[0].median*100|round)/100)x abifloor"' "$1"
}

echo "== 1. a large .deb: $pkg"
(cd "$out" && apt-get download "$pkg" >/dev/null 2>&1) || { echo "apt-get download $pkg failed" >&2; exit 2; }
deb=$(ls "$out"/*.deb | head -1)
data=$(ar t "$deb" | grep '^data\.tar')
case "$data" in
*.xz) dec="xz -dc" ;;
*.zst) dec="zstd -dc" ;;
*.gz) dec="gzip -dc" ;;
*) dec="cat" ;;
esac
echo "$(basename "$deb"): $(du -h "$deb" | cut -f1) compressed, $(dpkg-deb --fsys-tarfile "$deb" | wc -c | numfmt --to=iec) of files ($data)"
hyperfine --style basic --warmup 1 --runs 5 -i --export-json "$out/deb.json" \
	-n "abifloor scan X.deb" "$af scan $deb" \
	-n "dpkg-deb -x + abifloor scan" "rm -rf $out/x && dpkg-deb -x $deb $out/x && $af scan $out/x" \
	-n "dpkg-deb -x + objdump -p" "rm -rf $out/x && dpkg-deb -x $deb $out/x && find $out/x -type f -print0 | xargs -0 objdump -p >/dev/null 2>&1" \
	-n "decompression alone ($dec)" "ar p $deb $data | $dec >/dev/null" >/dev/null
cmp "$out/deb.json"
echo "  peak RSS: scan $(rss "$af" scan "$deb") KiB, scan --why $(rss "$af" scan --why "$deb") KiB"

echo "== 2. an npm package with a native addon"
if command -v npm >/dev/null && (cd "$out" && npm pack --silent @rollup/rollup-linux-x64-gnu >"$out/npm.name" 2>/dev/null); then
	tgz="$out/$(cat "$out/npm.name")"
	hyperfine --style basic --warmup 1 --runs 10 -i --export-json "$out/npm.json" \
		-n "abifloor scan X.tgz" "$af scan $tgz" \
		-n "tar -xzf + abifloor scan" "rm -rf $out/n && mkdir $out/n && tar -C $out/n -xzf $tgz && $af scan $out/n" >/dev/null
	cmp "$out/npm.json"
else
	echo "  skipped: npm pack failed or npm is not installed"
fi

echo "== 3. an OCI image layout (one gzip'd layer: the .deb's files)"
mkdir -p "$out/img/blobs/sha256"
dpkg-deb --fsys-tarfile "$deb" | gzip -1 >"$out/layer"
ld=$(sha256sum "$out/layer" | cut -d' ' -f1)
mv "$out/layer" "$out/img/blobs/sha256/$ld"
printf '{"schemaVersion":2,"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:%s"}]}' "$ld" >"$out/man"
md=$(sha256sum "$out/man" | cut -d' ' -f1)
mv "$out/man" "$out/img/blobs/sha256/$md"
printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s"}]}' "$md" >"$out/img/index.json"
echo '{"imageLayoutVersion":"1.0.0"}' >"$out/img/oci-layout"
echo "image: $(du -sh "$out/img" | cut -f1)"
hyperfine --style basic --warmup 1 --runs 5 -i --export-json "$out/img.json" \
	-n "abifloor scan IMG" "$af scan $out/img" \
	-n "tar -xzf layer + abifloor scan" "rm -rf $out/l && mkdir $out/l && tar -C $out/l -xzf $out/img/blobs/sha256/$ld && $af scan $out/l" \
	-n "decompression alone (gzip -dc)" "gzip -dc $out/img/blobs/sha256/$ld >/dev/null" >/dev/null
cmp "$out/img.json"
echo "  peak RSS: scan $(rss "$af" scan "$out/img") KiB"

echo "== 4. a tree with its artefacts: scan ${TREE:=/usr} (issue 17 item 7)"
bench/scan.sh "$TREE"
echo "  peak RSS: scan $(rss "$af" scan -q "$TREE") KiB, --no-artefacts $(rss "$af" scan -q --no-artefacts "$TREE") KiB"
