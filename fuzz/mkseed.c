/*
 * mkseed.c: writes the seeds of fuzz/corpus/ that are not copies of test
 * fixtures, with wakebench's own writers so that they are exactly what a
 * guest or an older wakebench produces (fuzz/make-corpus.sh runs it).
 *
 *   mkseed vmchan DIR      result-channel captures, as `vm` guests send them
 *   mkseed store DIR       a store of every schema version (tests/unit/store-legacy.h)
 *
 * The stores are compacted afterwards by make-corpus.sh (sqlite3 VACUUM with
 * small pages) to keep the corpus small.
 */
#include "runner/vmchan.h"
#include "store/store.h"
#include "../tests/unit/store-legacy.h"
#include "util/util.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static struct vmchan_writer open_capture(const char *dir, const char *name)
{
	char path[4200];
	struct vmchan_writer w = { .fd = -1, .seq = 0 };

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	w.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w.fd < 0)
		die_errno("cannot create '%s'", path);
	return w;
}

static void done(struct vmchan_writer *w)
{
	if (vmchan_finish(w) || close(w->fd))
		die_errno("cannot write a capture");
}

static void vmchan_seeds(const char *dir)
{
	static const char db[] = "SQLite format 3";
	struct vmchan_writer w;

	/* What a successful `vm -- run` sends. */
	w = open_capture(dir, "run.bin");
	if (vmchan_send(&w, VMCHAN_HELLO, "6.1.0-57-amd64", 14) ||
	    vmchan_send_output(&w, 1, "pipe  ops/s  1234.5\n", 20) ||
	    vmchan_send_output(&w, 2, "wakebench: warning: emulated (TCG)\n", 35) ||
	    vmchan_send_file(&w, "results.db", db, sizeof(db)) ||
	    vmchan_send_file(&w, "empty", "", 0) ||
	    vmchan_send_status(&w, 0, 2000000000ull, 1500000000ull))
		die_errno("cannot write a capture");
	done(&w);
	/* A file in two chunks (consecutive FILE records of one name), a failed status. */
	w = open_capture(dir, "chunks.bin");
	if (vmchan_send(&w, VMCHAN_HELLO, "6.12.25+rpt-rpi-2712", 20) ||
	    vmchan_send(&w, VMCHAN_FILE, "\x05\0\0\0env.j{\"a\":", 13) ||
	    vmchan_send(&w, VMCHAN_FILE, "\x05\0\0\0env.j1}", 11) ||
	    vmchan_send_status(&w, 77, 1000, 2000))
		die_errno("cannot write a capture");
	done(&w);
	/* The least a guest can send: END alone. */
	w = open_capture(dir, "end.bin");
	done(&w);
}

static void store_seeds(const char *dir)
{
	char path[4200];
	int v;

	for (v = 1; v <= store_schema_version(); v++) {
		snprintf(path, sizeof(path), "%s/v%d.db", dir, v);
		unlink(path);
		if (store_create_legacy(path, v))
			die("cannot create '%s'", path);
	}
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "vmchan"))
		vmchan_seeds(argv[2]);
	else if (argc == 3 && !strcmp(argv[1], "store"))
		store_seeds(argv[2]);
	else
		die_usage("usage: mkseed vmchan|store DIR");
	return 0;
}
