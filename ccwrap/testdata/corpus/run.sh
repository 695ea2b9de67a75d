#!/bin/sh
# run.sh PROJECT PREFIX DIR: run the programs that build.sh installed under
# PREFIX, in the scratch directory DIR, and print what they print. Each ELF
# program runs as $RUN PROGRAM ARGS ($RUN is empty for the native build, and
# bullseye's ld-2.31.so --library-path ... for the glibc 2.31 run), so the
# output of two builds can be compared. Used by ccwrap/corpus_test.go.
set -eu
p=$1 prefix=$2 dir=$3
b=$prefix/bin
mkdir -p "$dir"
cd "$dir"
# r PROGRAM ARGS: run an installed program through $RUN.
r() {
	prog=$1
	shift
	# shellcheck disable=SC2086
	${RUN:-} "$b/$prog" "$@"
}
# The input of the round trips: text that compresses, the same each run.
i=0
while [ $i -lt 2000 ]; do
	echo "line $i of the abifloor corpus round trip"
	i=$((i + 1))
done >in.txt
sum() { cksum | awk '{print $1, $2}'; }
case $p in
zlib)
	r example | grep -v '^zlib version' || true
	r minigzip <in.txt >in.gz
	r minigzip -d <in.gz | sum
	;;
xz-utils)
	r xz -9 -c in.txt >in.xz
	r xz -dc in.xz | sum
	r xz --robot --list in.xz | cut -f1-5
	;;
lua5.4)
	r lua -e 'local t = {} for i = 1, 10 do t[i] = i * i end print(table.concat(t, ","), string.format("%5.2f", math.pi), ("abc"):rep(3))'
	r luac -v | cut -d' ' -f1
	;;
sqlite3)
	r sqlite3 db.sqlite 'create table t(a integer, b text); insert into t values (1, "one"), (2, "two"), (3, "three"); select a, upper(b), length(b) from t order by a desc; select count(*), sum(a) from t; pragma integrity_check;'
	r sqlite3 db.sqlite 'select group_concat(b, "+") from t; select json_object("a", 1);'
	;;
bzip2)
	r bzip2 -c in.txt >in.bz2
	r bzip2 -dc in.bz2 | sum
	r bzip2 -t in.bz2 && echo ok
	;;
lz4)
	r lz4 -q -c in.txt >in.lz4
	r lz4 -q -dc in.lz4 | sum
	;;
libzstd)
	r zstd -q -19 -c in.txt >in.zst
	r zstd -q -dc in.zst | sum
	r zstd -q -T2 -c in.txt | r zstd -q -dc | sum
	;;
jq)
	echo '{"a":[1,2,3],"b":{"c":"x"},"d":null}' | r jq -c '{sum: (.a | add), keys: keys, c: .b.c, n: (.d // "none"), s: (.a | map(tostring) | join("-"))}'
	echo '[3,1,2]' | r jq -c 'sort, (map(. * 10) | reverse), length'
	;;
expat)
	printf '<?xml version="1.0"?>\n<a x="1"><b>text &amp; more</b><c/></a>\n' >ok.xml
	printf '<a><b></a>\n' >bad.xml
	r xmlwf ok.xml && echo well-formed
	r xmlwf bad.xml | sed 's|.*/||'
	;;
pcre2)
	r pcre2grep -c 'line [0-9]*7 of' in.txt
	r pcre2grep -o '(?<=line )1[0-9]{3}(?= of)' in.txt | tail -n 3
	printf '/(\\d+)-(\\w+)/\n    12-abc\n' | r pcre2test -q
	;;
pcre2-cmake)
	r pcre2grep -c 'line [0-9]*7 of' in.txt
	r pcre2grep -o '(?<=line )1[0-9]{3}(?= of)' in.txt | tail -n 3
	gzip -c in.txt >in.gz
	r pcre2grep -c 'line 1[0-9]*9 of' in.gz
	printf '/(\\d+)-(\\w+)/\n    12-abc\n' | r pcre2test -q
	;;
libevent)
	r evtest
	;;
tmux)
	r tmux -V
	# A server, a session whose pane prints, its screen read back.
	s=$dir/tmux.sock
	r tmux -S "$s" -f /dev/null new-session -d -x 60 -y 5 'printf "hello from tmux %s\n" "$((6 * 7))"; sleep 30'
	n=0
	until r tmux -S "$s" capture-pane -p | grep -q 'hello from tmux'; do
		n=$((n + 1))
		[ $n -lt 50 ] || break
		sleep 0.1
	done
	r tmux -S "$s" capture-pane -p | grep 'hello from tmux'
	r tmux -S "$s" list-sessions -F '#{session_name} #{session_windows} #{window_width}x#{window_height}'
	r tmux -S "$s" kill-server
	;;
libsodium)
	r sodiumtest
	;;
brotli)
	r brotli -c in.txt >in.br
	r brotli -dc in.br | sum
	;;
cjson)
	r cJSON_test | head -n 20
	;;
lmdb)
	mkdir db
	printf 'VERSION=3\nformat=print\ntype=btree\nmapsize=1048576\nmaxreaders=126\ndb_pagesize=4096\nHEADER=END\n a\n one\n b\n two\nDATA=END\n' | r mdb_load db
	r mdb_dump -p db | sed -n '/HEADER=END/,$p'
	r mdb_stat db | grep -E 'Entries|Depth'
	;;
libpng1.6)
	cp "$prefix/pngtest.png" .
	r pngtest pngtest.png out.png | grep -E 'PASS|FAIL' | sed 's/ in [0-9.]* seconds//'
	cmp pngtest.png out.png >/dev/null && echo same || echo differs
	;;
fmtlib)
	r fmttest
	;;
*)
	echo "run.sh: unknown project $p" >&2
	exit 2
	;;
esac
