#!/bin/sh
# next-step.sh WAKEBENCH: the one line `make run` ends with, saying what to
# try next on this machine: compare kernels once two are stored, else an A/B
# of DELAY_DEQUEUE where the features file can be written, else how to get
# a second kernel into the store.
wb=${1:-./wakebench}
kernels=$("$wb" compare --by kernel --format csv 2>/dev/null | awk -F, 'NR > 1 && $1 != "" { k[$1] = 1 } END { print length(k) }')
if [ "${kernels:-0}" -ge 2 ]; then
	echo "next: wakebench compare --by kernel   ($kernels kernels are stored: each against the first, with a verdict)"
	exit 0
fi
if [ "$(id -u)" = 0 ] && feats=$("$wb" features -q 2>/dev/null); then
	case " $feats " in
	*" DELAY_DEQUEUE "* | *" NO_DELAY_DEQUEUE "*)
		echo "next: wakebench ab --feature NO_DELAY_DEQUEUE   (DELAY_DEQUEUE off and on, interleaved in this boot, then restored)" ;;
	*)
		echo "next: wakebench ab --feature NO_NAME   (NAME one of 'wakebench features': off and on, interleaved, then restored)" ;;
	esac
	exit 0
fi
why=$("$wb" features -q 2>&1 >/dev/null | sed -n 's/^wakebench: error: //p' | head -1 | cut -d'(' -f1 | sed 's/ *$//')
echo "next: store a second kernel, then compare: wakebench vm --kernel IMAGE -- run pipe; wakebench compare --by kernel${why:+   (no ab here: $why)}"
