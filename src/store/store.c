/*
 * store.c: the results store, and the only file in wakebench with SQL in it.
 *
 * It owns the schema and its ordered migrations (PRAGMA user_version), the
 * checks made before a file is touched (not SQLite, another program's
 * database, a newer schema, read-only, no directory), the writes of `run`
 * and `ab` (one transaction per sample with its metrics, so a crash loses at
 * most the sample in progress), the reads of `show`, `compare` and `export`
 * (plain C structs, never SQL outside this file), and `import`, which merges
 * another store by experiment UUID. Opening never creates or changes
 * anything when it fails. A new store appears whole or not at all: built
 * under a temporary name and published by a rename that never replaces a
 * file (create_store()), and removed again by its creator if that ends with
 * nothing stored in it (the use lock). A read-only open of an older store
 * upgrades a copy in memory, so old files stay readable without being
 * written.
 *
 * Experiments record their owner (pid, its start time, the boot id) so that
 * one left "running" by a killed process reads as "interrupted".
 */
#include "store/store.h"
#include "util/identity.h"
#include "util/text.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <sqlite3.h>
#include <uuid/uuid.h>

/* "wake": marks a SQLite file as a wakebench store. */
#define STORE_APPLICATION_ID  0x77616b65
#define STORE_BUSY_TIMEOUT_MS 10000

/*
 * Ordered migrations: migrations[i] brings a store from version i to i + 1.
 * Never edit a step once it has shipped; add one.
 */
static const char *const migrations[] = {
	/* 1: the tables */
	"CREATE TABLE experiments ("
	" id INTEGER PRIMARY KEY,"
	" uuid TEXT NOT NULL UNIQUE,"
	" kind TEXT NOT NULL,"
	" workload TEXT NOT NULL,"
	" profile TEXT,"
	" params TEXT," /* JSON */
	" cmdline TEXT,"
	" version TEXT,"
	" label TEXT,"
	" host TEXT,"
	" kernel TEXT,"
	" started_ns INTEGER NOT NULL,"
	" ended_ns INTEGER,"
	" status TEXT NOT NULL DEFAULT 'running'"
	"  CHECK (status IN ('running', 'complete', 'interrupted', 'failed')));"
	"CREATE TABLE configs ("
	" id INTEGER PRIMARY KEY,"
	" experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,"
	" name TEXT NOT NULL,"
	" features TEXT,"
	" UNIQUE (experiment_id, name));"
	"CREATE TABLE samples ("
	" id INTEGER PRIMARY KEY,"
	" experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,"
	" config_id INTEGER NOT NULL REFERENCES configs(id) ON DELETE CASCADE,"
	" idx INTEGER NOT NULL,"
	" warmup INTEGER NOT NULL CHECK (warmup IN (0, 1)),"
	" status TEXT NOT NULL CHECK (status IN ('ok', 'failed', 'interrupted')),"
	" reason TEXT,"
	" start_realtime_ns INTEGER,"
	" duration_ns INTEGER,"
	" wall_ns INTEGER,"
	" instances INTEGER,"
	" ops INTEGER,"
	" real_s REAL,"
	" usr_s REAL,"
	" sys_s REAL,"
	" ops_per_s REAL,"
	" ops_per_cpu_s REAL);"
	"CREATE TABLE sample_metrics ("
	" sample_id INTEGER NOT NULL REFERENCES samples(id) ON DELETE CASCADE,"
	" pos INTEGER NOT NULL," /* order within the sample */
	" name TEXT NOT NULL,"
	" value REAL," /* NULL when unavailable */
	" available INTEGER NOT NULL CHECK (available IN (0, 1)),"
	" why TEXT,"
	" better INTEGER NOT NULL DEFAULT 0 CHECK (better IN (-1, 0, 1)),"
	" flags INTEGER NOT NULL DEFAULT 0,"
	" PRIMARY KEY (sample_id, pos)) WITHOUT ROWID;"
	"CREATE TABLE env ("
	" experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,"
	" phase TEXT NOT NULL CHECK (phase IN ('start', 'end')),"
	" key TEXT NOT NULL,"
	" value TEXT,"
	" impact INTEGER NOT NULL," /* enum impact */
	" PRIMARY KEY (experiment_id, phase, key)) WITHOUT ROWID;",

	/* 2: the owner of an experiment, to tell "running" from "killed" */
	"ALTER TABLE experiments ADD COLUMN owner_pid INTEGER;"
	"ALTER TABLE experiments ADD COLUMN owner_start_ticks INTEGER;"
	"ALTER TABLE experiments ADD COLUMN owner_boot_id TEXT;",

	/* 3: indexes for compare/export over many samples and for merging */
	"CREATE INDEX samples_by_experiment ON samples(experiment_id, id);"
	"CREATE INDEX configs_by_experiment ON configs(experiment_id);"
	"CREATE INDEX experiments_by_start ON experiments(started_ns);",

	/*
	 * 4: the metrics an experiment has, with their direction and flags, so
	 * that export headers and metric lists need not scan every sample
	 */
	"CREATE TABLE experiment_metrics ("
	" experiment_id INTEGER NOT NULL REFERENCES experiments(id) ON DELETE CASCADE,"
	" name TEXT NOT NULL,"
	" pos INTEGER NOT NULL," /* first position in a sample */
	" better INTEGER NOT NULL DEFAULT 0,"
	" flags INTEGER NOT NULL DEFAULT 0,"
	" PRIMARY KEY (experiment_id, name)) WITHOUT ROWID;"
	"INSERT INTO experiment_metrics (experiment_id, name, pos, better, flags)"
	" SELECT s.experiment_id, m.name, min(m.pos), m.better, m.flags"
	" FROM samples s JOIN sample_metrics m ON m.sample_id = s.id"
	" GROUP BY s.experiment_id, m.name;",
	/*
	 * 5: campaigns: one experiment across kernels and boots, rebooting
	 * between them (engine/campaign.c); each planned boot and what became
	 * of it. Not part of an export or an import: a campaign is this machine's.
	 */
	"CREATE TABLE campaigns ("
	" id INTEGER PRIMARY KEY,"
	" uuid TEXT NOT NULL UNIQUE,"
	" created_ns INTEGER NOT NULL,"
	" ended_ns INTEGER,"
	" state TEXT NOT NULL"
	"  CHECK (state IN ('running', 'decided', 'exhausted', 'aborted', 'failed')),"
	" backend TEXT NOT NULL,"
	" plan TEXT NOT NULL," /* JSON */
	" outcome TEXT);"
	"CREATE TABLE campaign_boots ("
	" campaign_id INTEGER NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,"
	" idx INTEGER NOT NULL,"
	" kernel TEXT NOT NULL,"
	" state TEXT NOT NULL CHECK (state IN ('planned', 'booting', 'measuring', 'measured',"
	"  'failed', 'wrong-kernel')),"
	" boot_id TEXT,"
	" experiment_uuid TEXT,"
	" reason TEXT,"
	" at_ns INTEGER,"
	" PRIMARY KEY (campaign_id, idx)) WITHOUT ROWID;",
};

#define STORE_VERSION ((int)ARRAY_SIZE(migrations))

struct store {
	sqlite3 *db;
	char *path;
	bool readonly;
	char boot_id[64];
	sqlite3_stmt *ins_sample, *ins_metric, *ins_expmetric;
	unsigned read_depth; /* nested store_read_begin() calls */
	/* read as immutable: the file as it was then, to tell a writer that came */
	bool immutable;
	struct stat immutable_sb;
	int guard;    /* the checkpoint guard's descriptor (guard_open()), or -1 */
	bool created; /* by this store_open(): removed at close if nothing is stored */
	/* a streamed JSON merge (store_json_begin()) */
	char *merge_name;
	size_t merge_total;
	sqlite3_stmt *ins_jexp, *ins_jsmp;
};

int store_schema_version(void)
{
	return STORE_VERSION;
}

static int db_error(sqlite3 *db, const char *path, const char *what)
{
	return error("store '%s': %s: %s", path, what, sqlite3_errmsg(db));
}

static int st_error(struct store *st, const char *what)
{
	return db_error(st->db, st->path, what);
}

static int exec(sqlite3 *db, const char *path, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	error("store '%s': %s", path, msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return -1;
}

static void rollback(struct store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

static int prepare(struct store *st, const char *sql, sqlite3_stmt **stmt)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, stmt, NULL) != SQLITE_OK)
		return st_error(st, "cannot prepare a query");
	return 0;
}

static int pragma_int(sqlite3 *db, const char *sql, int *out)
{
	sqlite3_stmt *stmt;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK)
		return -1;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int(stmt, 0);
	sqlite3_finalize(stmt);
	return rc == SQLITE_ROW ? 0 : -1;
}

/* Bind a string, or NULL for NULL or "". */
static void bind_text(sqlite3_stmt *stmt, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(stmt, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(stmt, i);
}

static char *col_strdup(sqlite3_stmt *stmt, int i)
{
	const unsigned char *t = sqlite3_column_text(stmt, i);

	return t ? xstrdup((const char *)t) : NULL;
}

static const char *col_text(sqlite3_stmt *stmt, int i)
{
	const unsigned char *t = sqlite3_column_text(stmt, i);

	return t ? (const char *)t : "";
}

/* ---- the owner of a running experiment ---- */

static bool owner_alive(sqlite3_stmt *stmt, int col)
{
	int64_t pid, ticks;

	if (sqlite3_column_type(stmt, col) == SQLITE_NULL)
		return false;
	pid = sqlite3_column_int64(stmt, col);
	ticks = sqlite3_column_int64(stmt, col + 1);
	return pid > 0 && pid <= INT32_MAX && ticks >= 0 &&
	       proc_identity_alive((pid_t)pid, (uint64_t)ticks, col_text(stmt, col + 2));
}

/* ---- opening ---- */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * Look at the file's header before SQLite opens it, so that a file we must
 * refuse is never touched. *version gets the schema version, -1 for an
 * empty file.
 */
static int check_header(const char *path, off_t size, int *version)
{
	unsigned char h[100];
	uint32_t app_id;
	int fd;
	ssize_t n;

	*version = -1;
	if (size == 0)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return error_errno("cannot open store '%s'", path);
	n = read_full(fd, h, sizeof(h));
	close(fd);
	if (n < 0)
		return error_errno("cannot read store '%s'", path);
	if (n < (ssize_t)sizeof(h) || memcmp(h, "SQLite format 3", 16))
		return error("'%s' is not a wakebench store (not an SQLite database)", path);
	app_id = be32(h + 68);
	*version = (int)be32(h + 60);
	if (app_id != 0 && app_id != STORE_APPLICATION_ID)
		return error("'%s' is not a wakebench store (an SQLite database of another "
			     "program, application id 0x%08x)",
			     path, app_id);
	if (*version > STORE_VERSION)
		return error("store '%s' has schema version %d, newer than this wakebench "
			     "understands (%d): use a newer wakebench",
			     path, *version, STORE_VERSION);
	return 0;
}

/*
 * Checks made on the open connection (the WAL may hold a newer header). The
 * three reads are one read transaction, so that they see one state of the
 * file: a store that another command is creating at this moment gets its
 * tables and its version in one transaction, and must never be seen with
 * the first and without the second ("an SQLite database with other tables").
 */
static int check_schema(sqlite3 *db, const char *path, int *version)
{
	int app_id = 0, ntables = 0, ret = 0;

	if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return db_error(db, path, "cannot read the schema");
	if (pragma_int(db, "PRAGMA application_id", &app_id) ||
	    pragma_int(db, "PRAGMA user_version", version) ||
	    pragma_int(db, "SELECT count(*) FROM sqlite_master", &ntables)) {
		if (sqlite3_errcode(db) == SQLITE_NOTADB)
			ret = error("'%s' is not a wakebench store (not an SQLite database)", path);
		else
			ret = db_error(db, path, "cannot read the schema");
	}
	if (!sqlite3_get_autocommit(db))
		sqlite3_exec(db, ret ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL);
	if (ret)
		return ret;
	if ((uint32_t)app_id != 0 && (uint32_t)app_id != STORE_APPLICATION_ID)
		return error("'%s' is not a wakebench store (an SQLite database of another "
			     "program, application id 0x%08x)",
			     path, (uint32_t)app_id);
	if (*version > STORE_VERSION)
		return error("store '%s' has schema version %d, newer than this wakebench "
			     "understands (%d): use a newer wakebench",
			     path, *version, STORE_VERSION);
	if (*version == 0 && ntables > 0)
		return error("'%s' is not a wakebench store (an SQLite database with other "
			     "tables)",
			     path);
	return 0;
}

static int apply_migrations(sqlite3 *db, const char *path, int to)
{
	char sql[96];
	int v, from;

	if (exec(db, path, "BEGIN IMMEDIATE"))
		return -1;
	/* Re-read inside the transaction: another process may have upgraded it. */
	if (pragma_int(db, "PRAGMA user_version", &from))
		goto fail;
	if (from > to) {
		error("store '%s' has schema version %d, newer than this wakebench understands "
		      "(%d): use a newer wakebench",
		      path, from, to);
		goto fail;
	}
	for (v = from; v < to; v++)
		if (exec(db, path, migrations[v]))
			goto fail;
	if (from < to) {
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d; PRAGMA application_id = %d",
			 to, STORE_APPLICATION_ID);
		if (exec(db, path, sql))
			goto fail;
	}
	if (!exec(db, path, "COMMIT"))
		return 0;
fail:
	if (!sqlite3_get_autocommit(db))
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

struct kernel_version {
	unsigned long num[4];
	size_t nnum;
	unsigned long rc; /* ULONG_MAX: not a release candidate */
	const char *rest; /* after the numbers and any -rcN */
};

static bool parse_kernel_version(const char *s, struct kernel_version *v)
{
	char *end;

	memset(v, 0, sizeof(*v));
	v->rc = ULONG_MAX;
	if (!isdigit((unsigned char)*s))
		return false;
	while (v->nnum < ARRAY_SIZE(v->num) && isdigit((unsigned char)*s)) {
		v->num[v->nnum++] = strtoul(s, &end, 10);
		s = end;
		if (*s != '.' || !isdigit((unsigned char)s[1]))
			break;
		s++;
	}
	if (!strncmp(s, "-rc", 3) && isdigit((unsigned char)s[3])) {
		v->rc = strtoul(s + 3, &end, 10);
		s = end;
	}
	v->rest = s;
	return true;
}

int store_kernel_cmp(const char *a, const char *b)
{
	struct kernel_version va, vb;
	bool ka = parse_kernel_version(a, &va), kb = parse_kernel_version(b, &vb);
	size_t i;

	if (!ka || !kb)
		return ka == kb ? strcmp(a, b) : ka ? -1 : 1;
	for (i = 0; i < ARRAY_SIZE(va.num); i++)
		if (va.num[i] != vb.num[i])
			return va.num[i] < vb.num[i] ? -1 : 1;
	if (va.rc != vb.rc)
		return va.rc < vb.rc ? -1 : 1;
	if (va.nnum != vb.nnum)
		return va.nnum < vb.nnum ? -1 : 1;
	return strcmp(va.rest, vb.rest);
}

static int kernel_collation(void *arg, int la, const void *a, int lb, const void *b)
{
	char *sa = strndup(a, (size_t)la), *sb = strndup(b, (size_t)lb);
	int r;

	(void)arg;
	if (!sa || !sb)
		die("out of memory");
	r = store_kernel_cmp(sa, sb);
	free(sa);
	free(sb);
	return r;
}

static void setup_connection(sqlite3 *db)
{
	sqlite3_create_collation(db, "kernel_version", SQLITE_UTF8, NULL, kernel_collation);
	sqlite3_extended_result_codes(db, 1);
	sqlite3_busy_timeout(db, STORE_BUSY_TIMEOUT_MS);
	sqlite3_exec(db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
}

/*
 * Switch to write-ahead logging. Changing the journal mode needs the
 * exclusive lock, and SQLite answers SQLITE_BUSY at once (without its busy
 * handler) when another writer that is creating the same store holds a
 * shared lock, so wait for it here, within the same busy timeout.
 */
static int enable_wal(sqlite3 *db, const char *path)
{
	uint64_t deadline_ns = now_ns() + (uint64_t)STORE_BUSY_TIMEOUT_MS * 1000000ULL;

	for (;;) {
		char mode[16] = "";
		sqlite3_stmt *stmt;
		int rc;

		if (sqlite3_prepare_v2(db, "PRAGMA journal_mode = WAL", -1, &stmt, NULL) !=
		    SQLITE_OK)
			return db_error(db, path, "cannot enable write-ahead logging");
		rc = sqlite3_step(stmt);
		if (rc == SQLITE_ROW)
			snprintf(mode, sizeof(mode), "%s", col_text(stmt, 0));
		sqlite3_finalize(stmt);
		if (!strcmp(mode, "wal"))
			return 0;
		if (((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) ||
		    now_ns() >= deadline_ns)
			return db_error(db, path, "cannot enable write-ahead logging");
		sleep_ns(10 * 1000000ULL);
	}
}

/*
 * Settings of a connection to a file that wakebench may not have written
 * (an import's source, a vm guest's store): nothing in its schema runs here.
 * Set before the schema is first read.
 */
static int harden_connection(sqlite3 *db, const char *path)
{
	static const struct {
		int op, value;
		const char *what;
	} settings[] = {
		{ SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, "disable triggers" },
#ifdef SQLITE_DBCONFIG_ENABLE_VIEW
		{ SQLITE_DBCONFIG_ENABLE_VIEW, 0, "disable views" },
#endif
#ifdef SQLITE_DBCONFIG_DEFENSIVE
		{ SQLITE_DBCONFIG_DEFENSIVE, 1, "enable the defensive mode" },
#endif
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
		{ SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, "distrust the schema" },
#endif
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(settings); i++) {
		int now = -1;

		if (sqlite3_db_config(db, settings[i].op, settings[i].value, &now) != SQLITE_OK ||
		    now != settings[i].value)
			return error("store '%s': cannot %s for reading it", path,
				     settings[i].what);
	}
	return 0;
}

/* Replace *db by an in-memory copy (to upgrade without writing the file). */
static int copy_to_memory(sqlite3 **db, const char *path, bool foreign)
{
	sqlite3 *mem;
	sqlite3_backup *b;
	int rc;

	if (sqlite3_open(":memory:", &mem) != SQLITE_OK ||
	    (foreign && harden_connection(mem, path))) {
		sqlite3_close(mem);
		return error("store '%s': cannot open an in-memory copy", path);
	}
	b = sqlite3_backup_init(mem, "main", *db, "main");
	if (!b) {
		db_error(mem, path, "cannot copy the store");
		sqlite3_close(mem);
		return -1;
	}
	rc = sqlite3_backup_step(b, -1);
	sqlite3_backup_finish(b);
	if (rc != SQLITE_DONE) {
		error("store '%s': cannot copy the store: %s", path, sqlite3_errstr(rc));
		sqlite3_close(mem);
		return -1;
	}
	sqlite3_close(*db);
	*db = mem;
	setup_connection(mem);
	return 0;
}

static int prepare_writes(struct store *st)
{
	if (prepare(st,
		    "INSERT INTO samples (experiment_id, config_id, idx, warmup, status, reason,"
		    " start_realtime_ns, duration_ns, wall_ns, instances, ops, real_s, usr_s,"
		    " sys_s, ops_per_s, ops_per_cpu_s)"
		    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
		    "?16)",
		    &st->ins_sample))
		return -1;
	if (prepare(st,
		    "INSERT INTO sample_metrics (sample_id, pos, name, value, available, why,"
		    " better, flags) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
		    &st->ins_metric))
		return -1;
	return prepare(st,
		       "INSERT OR IGNORE INTO experiment_metrics (experiment_id, name, pos, better,"
		       " flags) VALUES (?1, ?2, ?3, ?4, ?5)",
		       &st->ins_expmetric);
}

static bool dir_not_writable(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	bool shut;

	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	shut = access(slash ? dir : ".", W_OK) != 0;
	free(dir);
	return shut;
}

/* "file:PATH?mode=ro&immutable=1" with PATH percent-encoded. */
static char *immutable_uri(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	char *uri = xmalloc(strlen(path) * 3 + 32), *o = uri;
	const unsigned char *p;

	o += sprintf(o, "file:");
	for (p = (const unsigned char *)path; *p; p++) {
		if (isalnum(*p) || strchr("/-._~", *p)) {
			*o++ = (char)*p;
		} else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		}
	}
	strcpy(o, "?mode=ro&immutable=1");
	return uri;
}

/*
 * The checkpoint guard (doc/store.md, "Readers"). A reader that reads the
 * file itself (READ_IMMUTABLE, READ_COPY: no WAL index to share) holds a
 * shared lock on one byte far past anything SQLite locks, for as long as
 * it reads. A writer moves WAL pages into the file (a checkpoint, also the
 * one as the last connection closes) only while it holds that byte
 * exclusively; while a reader holds it, the pages wait in the WAL for the
 * next commit or the next writer. So a writer that starts meanwhile never
 * changes the file under such a reader.
 *
 * Open file description locks: they belong to the descriptor, so they
 * neither merge with nor conflict with SQLite's own POSIX locks in this
 * process. Closing the descriptor would still drop those POSIX locks (as
 * closing any descriptor of the file does), so it is closed only after
 * the SQLite connection. Where the file system has no such locks, there is
 * no guard and a writer checkpoints as SQLite does by itself.
 */
#define GUARD_BYTE	       ((off_t)1 << 62)
#define GUARD_CHECKPOINT_PAGES 1000 /* SQLite's own automatic checkpoint */

static int guard_open(const char *path, bool writer)
{
	return open(path, (writer ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW);
}

/* Lock (F_RDLCK, F_WRLCK) or unlock (F_UNLCK) one byte: 0, 1 when another
 * holds it, -1 when this file system has no such locks. */
static int byte_lock(int fd, off_t byte, short type)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = byte, .l_len = 1 };

	if (fd < 0)
		return -1;
	if (!fcntl(fd, F_OFD_SETLK, &fl))
		return 0;
	return errno == EAGAIN || errno == EACCES ? 1 : -1;
}

static int guard_lock(int fd, short type)
{
	return byte_lock(fd, GUARD_BYTE, type);
}

/* A reader's shared hold, waiting out a writer's checkpoint (within the busy timeout). */
static void guard_share(int fd)
{
	uint64_t deadline_ns = now_ns() + (uint64_t)STORE_BUSY_TIMEOUT_MS * 1000000ULL;

	while (guard_lock(fd, F_RDLCK) == 1 && now_ns() < deadline_ns)
		sleep_ns(1000000ULL);
}

/* A writer's checkpoint, unless a reader reads the file itself. */
static int guard_checkpoint(void *arg, sqlite3 *db, const char *schema, int pages)
{
	const struct store *st = arg;
	int held;

	if (pages < GUARD_CHECKPOINT_PAGES)
		return SQLITE_OK;
	held = guard_lock(st->guard, F_WRLCK);
	if (held == 1)
		return SQLITE_OK; /* the next commit tries again */
	sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	if (!held)
		guard_lock(st->guard, F_UNLCK);
	return SQLITE_OK;
}

/*
 * The use lock (doc/store.md, "Creating a store"). A command that created
 * a store and stored nothing in it (the disk was full, its import was
 * refused half-way) removes it as it ends, so that a failure leaves no
 * store that would read as an empty one. Another writer may have opened it
 * meanwhile: every writer holds a shared lock on the byte after the
 * guard's for as long as it has the store open, and the store is removed
 * only with that byte held exclusively, so while no other writer has it.
 * A writer that waited for the byte while the store was being removed
 * finds, once it has it, that its descriptor is no longer the file at the
 * path, and opens the path again.
 */
#define USE_BYTE (GUARD_BYTE + 1)

static bool same_file(int fd, const char *path)
{
	struct stat a, b;

	return !fstat(fd, &a) && !stat(path, &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* A writer's shared hold: 0, or 1 when the store was removed meanwhile (open it again). */
static int use_hold(int fd, const char *path)
{
	struct flock fl = {
		.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = USE_BYTE, .l_len = 1
	};

	while (fcntl(fd, F_OFD_SETLKW, &fl))
		if (errno != EINTR)
			return 0; /* no such locks here: then nobody removes it either */
	return same_file(fd, path) ? 0 : 1;
}

static void remove_side_files(const char *path)
{
	static const char *const sides[] = { "-wal", "-shm", "-journal" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sides); i++) {
		char *side = xasprintf("%s%s", path, sides[i]);

		unlink(side);
		free(side);
	}
}

/*
 * Remove the store at path, whose descriptor fd its creator holds, if no
 * other writer has it open. Its side files go first: no writer can make
 * new ones while the byte is held, and once the store's name is free a
 * new store (and its side files) may come at once.
 */
static void remove_unused(const char *path, int fd)
{
	if (byte_lock(fd, USE_BYTE, F_WRLCK) || !same_file(fd, path))
		return;
	remove_side_files(path);
	unlink(path);
}

/*
 * How a reader opens a store without creating anything next to it
 * (doc/store.md, "Readers"):
 * - READ_SHARED: a readable -shm exists, so a writer may be live: share its
 *   WAL index as an ordinary read-only connection (both side files exist
 *   already, nothing is created);
 * - READ_COPY: no -shm but a non-empty -wal (a killed writer's, or a copied
 *   store's): recover a private copy of both in a private directory;
 * - READ_IMMUTABLE: neither, so no connection is open and the file is all
 *   there is: read it as immutable, without locks or side files.
 */
enum read_mode { READ_SHARED, READ_COPY, READ_IMMUTABLE };

static enum read_mode read_mode(const char *path)
{
	char side[PATH_MAX];
	struct stat sb;

	snprintf(side, sizeof(side), "%s-shm", path);
	if (!stat(side, &sb) && !access(side, R_OK))
		return READ_SHARED;
	snprintf(side, sizeof(side), "%s-wal", path);
	if (!stat(side, &sb) && sb.st_size > 0)
		return READ_COPY;
	return READ_IMMUTABLE;
}

static int copy_file(const char *from, const char *to)
{
	char buf[1 << 16];
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, ret = -1;
	ssize_t n;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0)
		goto done;
	while ((n = read_full(in, buf, sizeof(buf))) > 0)
		if (write_full(out, buf, (size_t)n) != n)
			goto done;
	if (n == 0)
		ret = 0;
done:
	if (out >= 0 && close(out))
		ret = -1;
	close(in);
	return ret;
}

static void setup_connection(sqlite3 *db);

/* READ_COPY: the store and its -wal, recovered in a private directory, into memory. */
static int open_copy(const char *path, bool foreign, sqlite3 **out)
{
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX - 64], copy[PATH_MAX - 32], side[PATH_MAX], wal[PATH_MAX];
	sqlite3 *db = NULL;
	int ret = -1;

	snprintf(dir, sizeof(dir), "%s/wakebench-read.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return error_errno("store '%s': cannot create a private directory '%s' to read "
				   "its write-ahead log in",
				   path, dir);
	snprintf(copy, sizeof(copy), "%s/store.db", dir);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	snprintf(side, sizeof(side), "%s-wal", copy);
	if (copy_file(path, copy) || copy_file(wal, side)) {
		error_errno("store '%s': cannot copy it and its write-ahead log to '%s'", path,
			    dir);
		goto out;
	}
	if (sqlite3_open_v2(copy, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		db_error(db, path, "cannot open");
		goto out;
	}
	if (foreign && harden_connection(db, path))
		goto out;
	setup_connection(db);
	if (copy_to_memory(&db, path, foreign))
		goto out;
	*out = db;
	db = NULL;
	ret = 0;
out:
	sqlite3_close(db);
	unlink(copy);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", copy);
	unlink(side);
	rmdir(dir);
	return ret;
}

/* Open path read-only, creating nothing next to it (see read_mode()). */
static int open_read(const char *path, bool foreign, sqlite3 **out, bool *immutable, int *guard)
{
	int oflags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, rc;
	enum read_mode mode;
	sqlite3 *db = NULL;

	*out = NULL;
	/* held before the side files are looked at: a writer that starts later waits */
	*guard = guard_open(path, false);
	guard_share(*guard);
	mode = read_mode(path);
	if (mode == READ_SHARED)
		guard_lock(*guard, F_UNLCK); /* the WAL index guards this reader */
	if (immutable)
		*immutable = mode == READ_IMMUTABLE;
	if (mode == READ_COPY) {
		rc = open_copy(path, foreign, out);
		guard_lock(*guard, F_UNLCK); /* read into memory: the file is done with */
		return rc;
	}
	if (mode == READ_IMMUTABLE) {
		char *uri = immutable_uri(path);

		rc = sqlite3_open_v2(uri, &db, oflags | SQLITE_OPEN_URI, NULL);
		free(uri);
	} else {
		rc = sqlite3_open_v2(path, &db, oflags, NULL);
	}
	if (rc != SQLITE_OK) {
		if (db)
			db_error(db, path, "cannot open");
		else
			error("store '%s': cannot open", path);
		sqlite3_close(db);
		return -1;
	}
	if (foreign && harden_connection(db, path)) {
		sqlite3_close(db);
		return -1;
	}
	setup_connection(db);
	*out = db;
	return 0;
}

/* PRAGMA quick_check: every page and record well-formed (no index cross-check). */
static int check_structure(sqlite3 *db, const char *path)
{
	sqlite3_stmt *stmt;
	char *verdict = NULL;

	if (sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &stmt, NULL) == SQLITE_OK) {
		if (sqlite3_step(stmt) == SQLITE_ROW)
			verdict = text_printable(col_text(stmt, 0), 0);
		sqlite3_finalize(stmt);
	}
	if (verdict && !strcmp(verdict, "ok")) {
		free(verdict);
		return 0;
	}
	error("store '%s' is damaged (%s): move it away or restore it "
	      "from a copy",
	      path, verdict ? verdict : sqlite3_errmsg(db));
	free(verdict);
	return -1;
}

/* An existing file: a store this user may use as asked. Its version in *version. */
static int check_existing(const char *path, const struct stat *sb, bool ro, int *version)
{
	if (!S_ISREG(sb->st_mode))
		return error("'%s' is not a wakebench store (not a regular file)", path);
	if (check_header(path, sb->st_size, version))
		return -1;
	if (!ro && (access(path, W_OK) || !(sb->st_mode & 0222)))
		return error("store '%s' is read-only (%s)", path,
			     errno == EROFS ? strerror(EROFS) : "no write permission");
	if (ro && *version < 0)
		return error("store '%s' is empty: nothing stored yet", path);
	if (!ro && dir_not_writable(path))
		return error("store '%s' cannot be written: this user may not create files in "
			     "its directory, where SQLite keeps the write-ahead log",
			     path);
	return 0;
}

/*
 * A new store, built whole under a temporary name beside path and then put
 * in place by a rename that never replaces a file (outfile_publish()): its
 * tables, application id, version and WAL mode are there from the moment it
 * has its name, so another command starting at the same time finds either
 * no store or a complete one, never one half made. Of several starters one
 * publishes its store; the others (1 from here) remove theirs and open it.
 * On any failure nothing is left, not even an empty file that would later
 * read as an empty store (a full disk: t3016).
 *
 * Built with the journal in memory: the file is nobody else's until it is
 * published, and a failure discards it whole.
 */
static int build_store(const char *tmp, const char *path)
{
	sqlite3 *db = NULL;
	int ret = -1;

	if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		if (db)
			db_error(db, path, "cannot create the store");
		else
			error("cannot create store '%s': out of memory", path);
		goto out;
	}
	setup_connection(db);
	if (exec(db, path, "PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF") ||
	    apply_migrations(db, path, STORE_VERSION) || enable_wal(db, path))
		goto out;
	ret = 0;
out:
	if (sqlite3_close(db) != SQLITE_OK && !ret)
		ret = db_error(db, path, "cannot create the store");
	return ret;
}

/* 0: created, its file as published in *made; 1: another command's came first. */
static int create_store(const char *path, struct stat *made)
{
	struct outfile of;
	char *tmp;
	int ret;

	/* owner only, whatever the umask: it holds host names and command lines */
	if (outfile_open_new(&of, path, 0600))
		return error_errno("cannot create store '%s'", path);
	tmp = xstrdup(of.tmp);
	/* of.fd stays open until the connection is closed: closing it would drop SQLite's locks */
	if (build_store(tmp, path) || stat(tmp, made)) {
		outfile_abort(&of);
		ret = -1;
	} else {
		ret = outfile_publish(&of);
		if (ret < 0)
			error_errno("cannot create store '%s'", path);
	}
	remove_side_files(tmp);
	free(tmp);
	return ret;
}

/*
 * Nothing stored in the store created as made, by what the file system
 * shows: the same file, its size and time as made (a commit checkpointed
 * into it would change them), and nothing in its WAL.
 */
static bool unchanged_since(const char *path, const struct stat *made)
{
	char *wal = xasprintf("%s-wal", path);
	struct stat sb, wb;
	bool same;

	same = !stat(path, &sb) && sb.st_dev == made->st_dev && sb.st_ino == made->st_ino &&
	       sb.st_size == made->st_size && sb.st_mtim.tv_sec == made->st_mtim.tv_sec &&
	       sb.st_mtim.tv_nsec == made->st_mtim.tv_nsec && (stat(wal, &wb) || !wb.st_size);
	free(wal);
	return same;
}

/*
 * The connection, its schema checked and brought up to this version; 1
 * when the store was removed before it could be opened (open it again).
 */
static int open_db(const char *path, unsigned flags, sqlite3 **db, struct stat *isb,
		   bool *immutable, int *version, int *guard)
{
	bool ro = flags & STORE_READONLY;
	int rc;

	if (ro) {
		/*
		 * A reader creates nothing: no -wal, no -shm (see read_mode()). The
		 * file as it reads it is noted once it holds the checkpoint guard: a
		 * writer's checkpoint that ended just before is not one "while being
		 * read" (store_close()).
		 */
		if (open_read(path, false, db, immutable, guard) || stat(path, isb))
			return -1;
	} else {
		/* URIs on, for import's ATTACH (attach_foreign()); a path never reads as one */
		char *plain = strncmp(path, "file:", 5) ? xstrdup(path) : xasprintf("./%s", path);

		*guard = guard_open(path, true);
		if (*guard < 0)
			return error_errno("cannot open store '%s'", path);
		if (use_hold(*guard, path))
			return 1;
		/* one connection per thread: SQLite's own mutexes are not needed */
		rc = sqlite3_open_v2(plain, db,
				     SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI,
				     NULL);
		free(plain);
		if (rc != SQLITE_OK)
			return *db ? db_error(*db, path, "cannot open")
				   : error("store '%s': cannot open", path);
		setup_connection(*db);
		/* checkpoints only under the guard (guard_checkpoint(), store_close()) */
		sqlite3_wal_autocheckpoint(*db, 0);
		sqlite3_db_config(*db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	}
	if (check_schema(*db, path, version))
		return -1;
	if (ro)
		return *version < STORE_VERSION && (copy_to_memory(db, path, false) ||
						    apply_migrations(*db, path, STORE_VERSION))
			       ? -1
			       : 0;
	if (enable_wal(*db, path))
		return -1;
	/*
	 * WAL with NORMAL survives a killed process; only power loss (or the
	 * kernel's crash) may cost a commit. STORE_DURABLE: FULL, each commit
	 * synced. Only an old store takes the write lock here (concurrent runs
	 * open often).
	 */
	if (exec(*db, path,
		 (flags & STORE_DURABLE) ? "PRAGMA synchronous = FULL"
					 : "PRAGMA synchronous = NORMAL") ||
	    (*version < STORE_VERSION && apply_migrations(*db, path, STORE_VERSION)))
		return -1;
	return 0;
}

/* store_open(), once; 1 when the store was removed meanwhile (open it again). */
static int open_once(const char *path, unsigned flags, struct store **out)
{
	bool ro = flags & STORE_READONLY, immutable = false, created = false;
	struct stat isb = { 0 }, sb, made;
	struct store *st;
	sqlite3 *db = NULL;
	int version = -1, guard = -1, rc;

	if (stat(path, &sb) && errno == ENOENT && !ro && (flags & STORE_CREATE)) {
		rc = create_store(path, &made);
		if (rc < 0)
			return -1;
		created = rc == 0;
	}
	if (stat(path, &sb) == 0) {
		if (check_existing(path, &sb, ro, &version))
			return -1;
	} else if (errno != ENOENT) {
		return error_errno("cannot open store '%s'", path);
	} else {
		return error("no store at '%s': nothing stored yet", path);
	}
	rc = open_db(path, flags, &db, &isb, &immutable, &version, &guard);
	if (rc || ((flags & STORE_CHECK) && check_structure(db, path))) {
		sqlite3_close(db);
		/* what this call created and nobody has stored in is not left behind */
		if (created && unchanged_since(path, &made))
			remove_unused(path, guard);
		if (guard >= 0)
			close(guard);
		return rc > 0 ? 1 : -1;
	}
	st = xcalloc(1, sizeof(*st));
	st->db = db;
	st->guard = guard;
	st->created = created;
	if (!ro)
		sqlite3_wal_hook(db, guard_checkpoint, st);
	st->path = xstrdup(path);
	st->readonly = ro;
	/* an upgraded copy in memory is read, not the file */
	st->immutable = immutable && version >= STORE_VERSION;
	st->immutable_sb = isb;
	proc_boot_id(st->boot_id, sizeof(st->boot_id));
	if (!ro && prepare_writes(st)) {
		store_close(st);
		return -1;
	}
	*out = st;
	return 0;
}

int store_open(const char *path, unsigned flags, struct store **out)
{
	int tries, rc = 1;

	*out = NULL;
	if (!path || !*path)
		return error("no store path given");
	/* each new try follows a store removed by its creator: a few at most */
	for (tries = 0; tries < 8 && rc > 0; tries++)
		rc = open_once(path, flags, out);
	return rc > 0 ? error("cannot open store '%s': it was removed as it was being opened, "
			      "again and again",
			      path)
		      : rc;
}

void store_close(struct store *st)
{
	bool unused = false;
	int stored = 1;

	if (!st)
		return;
	if (st->immutable) {
		struct stat sb;

		/* a writer's checkpoint came while we read without locks: say so */
		if (!stat(st->path, &sb) &&
		    (sb.st_size != st->immutable_sb.st_size ||
		     sb.st_mtim.tv_sec != st->immutable_sb.st_mtim.tv_sec ||
		     sb.st_mtim.tv_nsec != st->immutable_sb.st_mtim.tv_nsec))
			warning("store '%s' was changed by a writer while being read: run the "
				"command again for a consistent view",
				st->path);
	}
	sqlite3_finalize(st->ins_sample);
	sqlite3_finalize(st->ins_metric);
	sqlite3_finalize(st->ins_expmetric);
	sqlite3_finalize(st->ins_jexp);
	sqlite3_finalize(st->ins_jsmp);
	free(st->merge_name);
	/* created here and nothing stored: removed if no other writer has it (remove_unused()) */
	if (st->created && !byte_lock(st->guard, USE_BYTE, F_WRLCK) &&
	    !pragma_int(
		    st->db,
		    "SELECT EXISTS (SELECT 1 FROM experiments) OR EXISTS (SELECT 1 FROM campaigns)",
		    &stored) &&
	    !stored)
		unused = true;
	/* the last connection's checkpoint (that removes the WAL), unless a reader reads */
	if (!st->readonly && !unused && guard_lock(st->guard, F_WRLCK) != 1)
		sqlite3_db_config(st->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, NULL);
	sqlite3_close(st->db);
	if (unused)
		remove_unused(st->path, st->guard);
	if (st->guard >= 0)
		close(st->guard); /* after the connection: see the checkpoint guard */
	free(st->path);
	free(st);
}

int store_user_version(struct store *st)
{
	int v = -1;

	pragma_int(st->db, "PRAGMA user_version", &v);
	return v;
}

char *store_integrity_check(struct store *st)
{
	sqlite3_stmt *stmt;
	char *res;

	if (sqlite3_prepare_v2(st->db, "PRAGMA integrity_check", -1, &stmt, NULL) != SQLITE_OK)
		return xstrdup(sqlite3_errmsg(st->db));
	if (sqlite3_step(stmt) == SQLITE_ROW)
		res = xstrdup(col_text(stmt, 0));
	else
		res = xstrdup(sqlite3_errmsg(st->db));
	sqlite3_finalize(stmt);
	return res;
}

/* ---- writing ---- */

static int writable(struct store *st)
{
	if (st->readonly)
		return error("store '%s' was opened read-only", st->path);
	return 0;
}

/* Step a write statement to completion, then reset it. */
static int step_done(struct store *st, sqlite3_stmt *stmt, const char *what)
{
	int rc = sqlite3_step(stmt);

	if (rc != SQLITE_DONE) {
		st_error(st, what);
		sqlite3_reset(stmt);
		return -1;
	}
	sqlite3_reset(stmt);
	return 0;
}

int store_begin_experiment(struct store *st, struct experiment_info *info, int64_t *exp_id)
{
	sqlite3_stmt *stmt;
	uint64_t ticks;
	int ret;

	if (writable(st))
		return -1;
	if (!info->uuid[0]) {
		uuid_t u;

		uuid_generate_random(u);
		uuid_unparse_lower(u, info->uuid);
	}
	if (prepare(st,
		    "INSERT INTO experiments (uuid, kind, workload, profile, params, cmdline,"
		    " version, label, host, kernel, started_ns, status, owner_pid,"
		    " owner_start_ticks, owner_boot_id)"
		    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 'running', ?12, ?13,"
		    " ?14)",
		    &stmt))
		return -1;
	bind_text(stmt, 1, info->uuid);
	bind_text(stmt, 2, info->kind ? info->kind : "run");
	bind_text(stmt, 3, info->workload ? info->workload : "unknown");
	bind_text(stmt, 4, info->profile);
	bind_text(stmt, 5, info->params_json);
	bind_text(stmt, 6, info->cmdline);
	bind_text(stmt, 7, info->version ? info->version : WAKEBENCH_VERSION);
	bind_text(stmt, 8, info->label);
	bind_text(stmt, 9, info->host);
	bind_text(stmt, 10, info->kernel);
	sqlite3_bind_int64(stmt, 11,
			   (sqlite3_int64)(info->started_ns ? info->started_ns : realtime_ns()));
	sqlite3_bind_int64(stmt, 12, (sqlite3_int64)getpid());
	if (proc_start_ticks(getpid(), &ticks))
		sqlite3_bind_int64(stmt, 13, -1);
	else
		sqlite3_bind_int64(stmt, 13, (sqlite3_int64)ticks);
	bind_text(stmt, 14, st->boot_id);
	ret = step_done(st, stmt, "cannot store the experiment");
	sqlite3_finalize(stmt);
	if (!ret)
		*exp_id = (int64_t)sqlite3_last_insert_rowid(st->db);
	return ret;
}

int store_add_config(struct store *st, int64_t exp_id, const char *name, const char *features,
		     int64_t *config_id)
{
	sqlite3_stmt *stmt;
	int ret;

	if (writable(st) ||
	    prepare(st, "INSERT INTO configs (experiment_id, name, features) VALUES (?1, ?2, ?3)",
		    &stmt))
		return -1;
	sqlite3_bind_int64(stmt, 1, exp_id);
	bind_text(stmt, 2, name && *name ? name : "default");
	bind_text(stmt, 3, features);
	ret = step_done(st, stmt, "cannot store the config");
	sqlite3_finalize(stmt);
	if (!ret)
		*config_id = (int64_t)sqlite3_last_insert_rowid(st->db);
	return ret;
}

int store_add_sample(struct store *st, int64_t exp_id, int64_t config_id, const struct sample *s)
{
	sqlite3_stmt *q = st->ins_sample, *m = st->ins_metric;
	sqlite3_int64 sample_id;
	size_t i;

	if (writable(st) || exec(st->db, st->path, "BEGIN IMMEDIATE"))
		return -1;
	sqlite3_bind_int64(q, 1, exp_id);
	sqlite3_bind_int64(q, 2, config_id);
	sqlite3_bind_int64(q, 3, s->index);
	sqlite3_bind_int(q, 4, s->warmup ? 1 : 0);
	sqlite3_bind_text(q, 5, sample_status_name(s->status), -1, SQLITE_STATIC);
	bind_text(q, 6, s->reason);
	sqlite3_bind_int64(q, 7, (sqlite3_int64)s->start_realtime_ns);
	sqlite3_bind_int64(q, 8, (sqlite3_int64)s->duration_ns);
	sqlite3_bind_int64(q, 9, (sqlite3_int64)s->wall_ns);
	sqlite3_bind_int64(q, 10, s->instances);
	sqlite3_bind_int64(q, 11, (sqlite3_int64)s->ops);
	sqlite3_bind_double(q, 12, s->real_s);
	sqlite3_bind_double(q, 13, s->usr_s);
	sqlite3_bind_double(q, 14, s->sys_s);
	sqlite3_bind_double(q, 15, s->ops_per_s);
	sqlite3_bind_double(q, 16, s->ops_per_cpu_s);
	if (step_done(st, q, "cannot store the sample"))
		goto fail;
	sample_id = sqlite3_last_insert_rowid(st->db);
	for (i = 0; i < s->nmetrics; i++) {
		const struct metric *mt = &s->metrics[i];

		sqlite3_bind_int64(m, 1, sample_id);
		sqlite3_bind_int64(m, 2, (sqlite3_int64)i);
		sqlite3_bind_text(m, 3, mt->name, -1, SQLITE_TRANSIENT);
		if (mt->available)
			sqlite3_bind_double(m, 4, mt->value);
		else
			sqlite3_bind_null(m, 4);
		sqlite3_bind_int(m, 5, mt->available ? 1 : 0);
		bind_text(m, 6, mt->available ? NULL : mt->why);
		sqlite3_bind_int(m, 7, mt->better > 0 ? 1 : mt->better < 0 ? -1 : 0);
		sqlite3_bind_int64(m, 8, mt->flags);
		if (step_done(st, m, "cannot store a metric of the sample"))
			goto fail;
		sqlite3_bind_int64(st->ins_expmetric, 1, exp_id);
		sqlite3_bind_text(st->ins_expmetric, 2, mt->name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(st->ins_expmetric, 3, (sqlite3_int64)i);
		sqlite3_bind_int(st->ins_expmetric, 4,
				 mt->better > 0	  ? 1
				 : mt->better < 0 ? -1
						  : 0);
		sqlite3_bind_int64(st->ins_expmetric, 5, mt->flags);
		if (step_done(st, st->ins_expmetric, "cannot store a metric of the sample"))
			goto fail;
	}
	if (!exec(st->db, st->path, "COMMIT"))
		return 0;
fail:
	rollback(st);
	return -1;
}

static int check_phase(const char *phase)
{
	if (!phase || (strcmp(phase, "start") && strcmp(phase, "end")))
		return error("environment phase '%s' is not start or end", phase ? phase : "");
	return 0;
}

static int insert_env(struct store *st, sqlite3_stmt *stmt, int64_t exp_id, const char *phase,
		      const char *key, const char *value, enum impact impact)
{
	sqlite3_bind_int64(stmt, 1, exp_id);
	sqlite3_bind_text(stmt, 2, phase, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, key, -1, SQLITE_TRANSIENT);
	if (value)
		sqlite3_bind_text(stmt, 4, value, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(stmt, 4);
	sqlite3_bind_int(stmt, 5, (int)impact);
	return step_done(st, stmt, "cannot store an environment key");
}

#define SQL_INSERT_ENV                                                                             \
	"INSERT OR REPLACE INTO env (experiment_id, phase, key, value, impact)"                    \
	" VALUES (?1, ?2, ?3, ?4, ?5)"

int store_add_env(struct store *st, int64_t exp_id, const char *phase, const struct env *env)
{
	sqlite3_stmt *stmt;
	size_t i;

	if (writable(st) || check_phase(phase) || prepare(st, SQL_INSERT_ENV, &stmt))
		return -1;
	if (exec(st->db, st->path, "BEGIN IMMEDIATE"))
		goto fail;
	for (i = 0; i < env->n; i++)
		if (insert_env(st, stmt, exp_id, phase, env->e[i].key, env->e[i].value,
			       env->e[i].impact))
			goto fail;
	if (exec(st->db, st->path, "COMMIT"))
		goto fail;
	sqlite3_finalize(stmt);
	return 0;
fail:
	rollback(st);
	sqlite3_finalize(stmt);
	return -1;
}

int store_add_env_entry(struct store *st, int64_t exp_id, const char *phase, const char *key,
			const char *value, enum impact impact)
{
	sqlite3_stmt *stmt;
	int ret;

	if (writable(st) || check_phase(phase) || prepare(st, SQL_INSERT_ENV, &stmt))
		return -1;
	ret = insert_env(st, stmt, exp_id, phase, key, value, impact);
	sqlite3_finalize(stmt);
	return ret;
}

int store_end_experiment(struct store *st, int64_t exp_id, const char *status)
{
	sqlite3_stmt *stmt;
	int ret;

	if (!status || (strcmp(status, "complete") && strcmp(status, "interrupted") &&
			strcmp(status, "failed")))
		return error("experiment status '%s' is not complete, interrupted or failed",
			     status ? status : "");
	if (writable(st) ||
	    prepare(st, "UPDATE experiments SET status = ?2, ended_ns = ?3 WHERE id = ?1", &stmt))
		return -1;
	sqlite3_bind_int64(stmt, 1, exp_id);
	sqlite3_bind_text(stmt, 2, status, -1, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 3, (sqlite3_int64)realtime_ns());
	ret = step_done(st, stmt, "cannot end the experiment");
	sqlite3_finalize(stmt);
	if (!ret && sqlite3_changes(st->db) != 1)
		ret = error("store '%s': no experiment %lld", st->path, (long long)exp_id);
	return ret;
}

int store_set_params(struct store *st, int64_t exp_id, const char *params_json)
{
	sqlite3_stmt *stmt;
	int ret;

	if (writable(st) || prepare(st, "UPDATE experiments SET params = ?2 WHERE id = ?1", &stmt))
		return -1;
	sqlite3_bind_int64(stmt, 1, exp_id);
	sqlite3_bind_text(stmt, 2, params_json, -1, SQLITE_STATIC);
	ret = step_done(st, stmt, "cannot store the experiment's parameters");
	sqlite3_finalize(stmt);
	if (!ret && sqlite3_changes(st->db) != 1)
		ret = error("store '%s': no experiment %lld", st->path, (long long)exp_id);
	return ret;
}

/* ---- reading ---- */

int store_read_begin(struct store *st)
{
	/* a deferred transaction: its first read fixes the snapshot */
	if (st->read_depth == 0 && exec(st->db, st->path, "BEGIN DEFERRED"))
		return -1;
	st->read_depth++;
	return 0;
}

void store_read_end(struct store *st)
{
	if (st->read_depth && --st->read_depth == 0)
		rollback(st);
}

int store_load_env(struct store *st, int64_t exp_id, const char *phase, struct env *out)
{
	sqlite3_stmt *stmt;
	int rc;

	if (check_phase(phase) ||
	    prepare(st,
		    "SELECT key, value, impact FROM env WHERE experiment_id = ?1 AND phase = ?2"
		    " ORDER BY key",
		    &stmt))
		return -1;
	sqlite3_bind_int64(stmt, 1, exp_id);
	sqlite3_bind_text(stmt, 2, phase, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		int impact = sqlite3_column_int(stmt, 2);

		if (impact < IMPACT_STRONG || impact > IMPACT_RUN)
			impact = IMPACT_RUN;
		env_set(out, col_text(stmt, 0), (enum impact)impact, "%s", col_text(stmt, 1));
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE)
		return st_error(st, "cannot read the environment");
	return 0;
}

int store_find_experiment(struct store *st, const char *ref, int64_t *exp_id)
{
	sqlite3_stmt *stmt;
	size_t i, len = ref ? strlen(ref) : 0;
	bool digits = len > 0, hex = len > 0;
	int rc, nfound = 0;
	char first[37] = "", second[37] = "";

	for (i = 0; i < len; i++) {
		digits &= isdigit((unsigned char)ref[i]) != 0;
		hex &= isxdigit((unsigned char)ref[i]) || ref[i] == '-';
	}
	if (digits) {
		uint64_t id;

		if (!parse_u64(ref, &id) && id <= INT64_MAX) {
			if (prepare(st, "SELECT id FROM experiments WHERE id = ?1", &stmt))
				return -1;
			sqlite3_bind_int64(stmt, 1, (sqlite3_int64)id);
			rc = sqlite3_step(stmt);
			sqlite3_finalize(stmt);
			if (rc == SQLITE_ROW) {
				*exp_id = (int64_t)id;
				return 0;
			}
		}
	}
	if (!hex || len < 4 || len > 36)
		return error("no experiment '%s' in '%s' (give an id or at least 4 characters of "
			     "a UUID)",
			     ref ? ref : "", st->path);
	if (prepare(st,
		    "SELECT id, uuid FROM experiments WHERE substr(uuid, 1, ?2) = lower(?1)"
		    " ORDER BY id LIMIT 2",
		    &stmt))
		return -1;
	sqlite3_bind_text(stmt, 1, ref, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(stmt, 2, (int)len);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (nfound == 0) {
			*exp_id = sqlite3_column_int64(stmt, 0);
			snprintf(first, sizeof(first), "%s", col_text(stmt, 1));
		} else {
			snprintf(second, sizeof(second), "%s", col_text(stmt, 1));
		}
		nfound++;
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE)
		return st_error(st, "cannot look up the experiment");
	if (nfound == 0)
		return error("no experiment '%s' in '%s'", ref, st->path);
	if (nfound > 1)
		return error("experiment '%s' is ambiguous in '%s' (%s, %s, ...): give more of "
			     "the UUID",
			     ref, st->path, first, second);
	return 0;
}

/* The WHERE clause every filtered query shares; parameters ?1..?7, lists as JSON arrays. */
#define SQL_FILTER                                                                                 \
	" (?1 IS NULL OR e.workload IN (SELECT value FROM json_each(?1)))"                         \
	" AND (?2 IS NULL OR e.profile IN (SELECT value FROM json_each(?2)))"                      \
	" AND (?3 IS NULL OR e.label IN (SELECT value FROM json_each(?3)))"                        \
	" AND (?4 IS NULL OR e.kernel IN (SELECT value FROM json_each(?4)))"                       \
	" AND (?5 IS NULL OR e.host IN (SELECT value FROM json_each(?5)))"                         \
	" AND (?6 IS NULL OR e.started_ns >= ?6) AND (?7 IS NULL OR e.id = ?7)"

/* A filter list as a JSON array of strings for json_each(), or NULL when empty. */
static void bind_list(sqlite3_stmt *stmt, int i, const struct strlist *l)
{
	json_object *a;
	size_t k;

	if (!l->n) {
		sqlite3_bind_null(stmt, i);
		return;
	}
	a = json_object_new_array();
	for (k = 0; k < l->n; k++)
		json_object_array_add(a, json_object_new_string(l->v[k] ? l->v[k] : ""));
	sqlite3_bind_text(stmt, i, json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN), -1,
			  SQLITE_TRANSIENT);
	json_object_put(a);
}

static void bind_filter(sqlite3_stmt *stmt, const struct store_filter *f)
{
	static const struct store_filter none;

	if (!f)
		f = &none;
	bind_list(stmt, 1, &f->workload);
	bind_list(stmt, 2, &f->profile);
	bind_list(stmt, 3, &f->label);
	bind_list(stmt, 4, &f->kernel);
	bind_list(stmt, 5, &f->host);
	if (f->since_ns)
		sqlite3_bind_int64(stmt, 6, (sqlite3_int64)f->since_ns);
	else
		sqlite3_bind_null(stmt, 6);
	if (f->exp_id)
		sqlite3_bind_int64(stmt, 7, f->exp_id);
	else
		sqlite3_bind_null(stmt, 7);
}

static void experiment_release(struct store_experiment *e)
{
	free(e->kind);
	free(e->workload);
	free(e->profile);
	free(e->params_json);
	free(e->cmdline);
	free(e->version);
	free(e->label);
	free(e->host);
	free(e->kernel);
	free(e->boot_id);
}

void store_experiments_free(struct store_experiment *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		experiment_release(&v[i]);
	free(v);
}

int store_list_experiments(struct store *st, const struct store_filter *f,
			   struct store_experiment **out, size_t *n)
{
	sqlite3_stmt *stmt;
	struct store_experiment *v = NULL;
	size_t cnt = 0, alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (prepare(st,
		    "SELECT e.id, e.uuid, e.kind, e.workload, e.profile, e.params, e.cmdline,"
		    " e.version, e.label, e.host, e.kernel, e.started_ns, e.ended_ns, e.status,"
		    " (SELECT count(*) FROM samples s WHERE s.experiment_id = e.id),"
		    " e.owner_pid, e.owner_start_ticks, e.owner_boot_id"
		    " FROM experiments e WHERE" SQL_FILTER " ORDER BY e.started_ns, e.id",
		    &stmt))
		return -1;
	bind_filter(stmt, f);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct store_experiment *e;
		const char *status = col_text(stmt, 13);

		if (cnt == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			v = xrealloc(v, alloc * sizeof(*v));
		}
		e = &v[cnt++];
		memset(e, 0, sizeof(*e));
		e->id = sqlite3_column_int64(stmt, 0);
		snprintf(e->uuid, sizeof(e->uuid), "%s", col_text(stmt, 1));
		e->kind = col_strdup(stmt, 2);
		e->workload = col_strdup(stmt, 3);
		e->profile = col_strdup(stmt, 4);
		e->params_json = col_strdup(stmt, 5);
		e->cmdline = col_strdup(stmt, 6);
		e->version = col_strdup(stmt, 7);
		e->label = col_strdup(stmt, 8);
		e->host = col_strdup(stmt, 9);
		e->kernel = col_strdup(stmt, 10);
		e->boot_id = col_strdup(stmt, 17);
		e->started_ns = (uint64_t)sqlite3_column_int64(stmt, 11);
		e->ended_ns = (uint64_t)sqlite3_column_int64(stmt, 12);
		if (!strcmp(status, "running") && !owner_alive(stmt, 15))
			status = "interrupted";
		snprintf(e->status, sizeof(e->status), "%s", status);
		e->nsamples = sqlite3_column_int64(stmt, 14);
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE) {
		store_experiments_free(v, cnt);
		return st_error(st, "cannot read the experiments");
	}
	*out = v;
	*n = cnt;
	return 0;
}

void store_configs_free(struct store_config *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].features);
	}
	free(v);
}

int store_list_configs(struct store *st, const struct store_filter *f, struct store_config **out,
		       size_t *n)
{
	sqlite3_stmt *stmt;
	struct store_config *v = NULL;
	size_t cnt = 0, alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (prepare(st,
		    "SELECT c.id, c.experiment_id, c.name, c.features FROM configs c"
		    " JOIN experiments e ON e.id = c.experiment_id WHERE" SQL_FILTER
		    " ORDER BY c.id",
		    &stmt))
		return -1;
	bind_filter(stmt, f);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		if (cnt == alloc) {
			alloc = alloc ? 2 * alloc : 16;
			v = xrealloc(v, alloc * sizeof(*v));
		}
		v[cnt].id = sqlite3_column_int64(stmt, 0);
		v[cnt].exp_id = sqlite3_column_int64(stmt, 1);
		v[cnt].name = col_strdup(stmt, 2);
		v[cnt].features = col_strdup(stmt, 3);
		cnt++;
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE) {
		store_configs_free(v, cnt);
		return st_error(st, "cannot read the configs");
	}
	*out = v;
	*n = cnt;
	return 0;
}

static const struct store_config *find_config(const struct store_config *v, size_t n, int64_t id)
{
	size_t lo = 0, hi = n;

	/* configs are listed by id */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].id == id)
			return &v[mid];
		if (v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Copy a column's text into a fixed buffer, truncating (snprintf is slow here). */
static void col_copy(sqlite3_stmt *stmt, int i, char *buf, size_t size)
{
	const unsigned char *t = sqlite3_column_text(stmt, i);
	size_t len = t ? (size_t)sqlite3_column_bytes(stmt, i) : 0;

	if (len >= size)
		len = size - 1;
	if (len)
		memcpy(buf, t, len);
	buf[len] = '\0';
}

static enum sample_status parse_status(const char *s)
{
	if (!strcmp(s, "ok"))
		return SAMPLE_OK;
	if (!strcmp(s, "interrupted"))
		return SAMPLE_INTERRUPTED;
	return SAMPLE_FAILED;
}

static void fill_sample(sqlite3_stmt *q, struct sample *s)
{
	s->index = (uint32_t)sqlite3_column_int64(q, 2);
	s->warmup = sqlite3_column_int(q, 3) != 0;
	s->status = parse_status(col_text(q, 4));
	col_copy(q, 5, s->reason, sizeof(s->reason));
	s->start_realtime_ns = (uint64_t)sqlite3_column_int64(q, 6);
	s->duration_ns = (uint64_t)sqlite3_column_int64(q, 7);
	s->wall_ns = (uint64_t)sqlite3_column_int64(q, 8);
	s->instances = (uint32_t)sqlite3_column_int64(q, 9);
	s->ops = (uint64_t)sqlite3_column_int64(q, 10);
	s->real_s = sqlite3_column_double(q, 11);
	s->usr_s = sqlite3_column_double(q, 12);
	s->sys_s = sqlite3_column_double(q, 13);
	s->ops_per_s = sqlite3_column_double(q, 14);
	s->ops_per_cpu_s = sqlite3_column_double(q, 15);
	s->nmetrics = 0;
}

static void fill_metric(sqlite3_stmt *m, struct sample *s)
{
	struct metric *mt;

	if (s->nmetrics >= SAMPLE_MAX_METRICS)
		return;
	mt = &s->metrics[s->nmetrics++];
	col_copy(m, 1, mt->name, sizeof(mt->name));
	mt->available = sqlite3_column_int(m, 3) != 0;
	mt->value = mt->available ? sqlite3_column_double(m, 2) : 0;
	col_copy(m, 4, mt->why, sizeof(mt->why));
	mt->better = sqlite3_column_int(m, 5);
	mt->flags = (unsigned)sqlite3_column_int64(m, 6);
}

int store_foreach_sample(struct store *st, const struct store_filter *f, unsigned flags,
			 int (*fn)(void *arg, const struct store_row *row), void *arg)
{
	struct store_experiment *exps = NULL;
	struct store_config *cfgs = NULL;
	size_t nexps = 0, ncfgs = 0, i;
	sqlite3_stmt *q = NULL, *m = NULL;
	struct sample *s = NULL;
	int ret = -1, rc = SQLITE_DONE, mrc = SQLITE_DONE;
	bool stats = flags & STORE_ROWS_STATS, metrics = !(flags & STORE_ROWS_NO_METRICS);

	/* experiments, configs and samples from one snapshot, however writers interleave */
	if (store_read_begin(st))
		return -1;
	if (store_list_experiments(st, f, &exps, &nexps) ||
	    store_list_configs(st, f, &cfgs, &ncfgs))
		goto out;
	if (prepare(st,
		    stats ? "SELECT id, config_id, idx, warmup, status, reason, start_realtime_ns,"
			    " duration_ns, wall_ns, instances, ops, real_s, usr_s, sys_s,"
			    " ops_per_s, ops_per_cpu_s FROM samples WHERE experiment_id = ?1"
			    " AND status = 'ok' AND warmup = 0 ORDER BY id"
			  : "SELECT id, config_id, idx, warmup, status, reason, start_realtime_ns,"
			    " duration_ns, wall_ns, instances, ops, real_s, usr_s, sys_s,"
			    " ops_per_s, ops_per_cpu_s FROM samples WHERE experiment_id = ?1"
			    " ORDER BY id",
		    &q))
		goto out;
	if (metrics &&
	    prepare(st,
		    "SELECT m.sample_id, m.name, m.value, m.available, m.why, m.better, m.flags"
		    " FROM samples s JOIN sample_metrics m ON m.sample_id = s.id"
		    " WHERE s.experiment_id = ?1 ORDER BY s.id, m.pos",
		    &m))
		goto out;
	s = xmalloc(sizeof(*s));
	sample_init(s);
	for (i = 0; i < nexps; i++) {
		struct store_row row = { .exp = &exps[i], .s = s };

		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, exps[i].id);
		if (m) {
			sqlite3_reset(m);
			sqlite3_bind_int64(m, 1, exps[i].id);
			mrc = sqlite3_step(m);
		}
		while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
			row.sample_id = sqlite3_column_int64(q, 0);
			row.cfg = find_config(cfgs, ncfgs, sqlite3_column_int64(q, 1));
			fill_sample(q, s);
			while (m && mrc == SQLITE_ROW && sqlite3_column_int64(m, 0) < row.sample_id)
				mrc = sqlite3_step(m);
			while (m && mrc == SQLITE_ROW &&
			       sqlite3_column_int64(m, 0) == row.sample_id) {
				fill_metric(m, s);
				mrc = sqlite3_step(m);
			}
			if (m && mrc != SQLITE_ROW && mrc != SQLITE_DONE)
				break;
			ret = fn(arg, &row);
			if (ret)
				goto out;
		}
		if (rc != SQLITE_DONE || (m && mrc != SQLITE_ROW && mrc != SQLITE_DONE)) {
			ret = st_error(st, "cannot read the samples");
			goto out;
		}
	}
	ret = 0;
out:
	free(s);
	sqlite3_finalize(q);
	sqlite3_finalize(m);
	store_read_end(st);
	store_experiments_free(exps, nexps);
	store_configs_free(cfgs, ncfgs);
	return ret;
}

void store_metric_defs_free(struct store_metric_def *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

int store_list_metric_defs(struct store *st, int64_t exp_id, struct store_metric_def **out,
			   size_t *n)
{
	struct store_metric_def *v = NULL;
	sqlite3_stmt *stmt;
	size_t cnt = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (prepare(st,
		    "SELECT name, better, flags FROM experiment_metrics WHERE experiment_id = ?1"
		    " ORDER BY pos, name",
		    &stmt))
		return -1;
	sqlite3_bind_int64(stmt, 1, exp_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		v = xrealloc(v, (cnt + 1) * sizeof(*v));
		v[cnt].name = xstrdup(col_text(stmt, 0));
		v[cnt].better = sqlite3_column_int(stmt, 1);
		v[cnt].flags = (unsigned)sqlite3_column_int64(stmt, 2);
		cnt++;
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE) {
		store_metric_defs_free(v, cnt);
		return st_error(st, "cannot read the metrics");
	}
	*out = v;
	*n = cnt;
	return 0;
}

int store_foreach_sample_json(struct store *st, int64_t exp_id,
			      int (*fn)(void *arg, const char *json), void *arg)
{
	sqlite3_stmt *stmt;
	int rc, ret = 0;

	if (prepare(st,
		    "SELECT json_object('index', s.idx, 'config', c.name,"
		    " 'warmup', json(CASE WHEN s.warmup THEN 'true' ELSE 'false' END),"
		    " 'status', s.status, 'reason', s.reason,"
		    " 'start_realtime_ns', s.start_realtime_ns, 'duration_ns', s.duration_ns,"
		    " 'wall_ns', s.wall_ns, 'instances', s.instances, 'ops', s.ops,"
		    " 'real_s', s.real_s, 'usr_s', s.usr_s, 'sys_s', s.sys_s,"
		    " 'ops_per_s', s.ops_per_s, 'ops_per_cpu_s', s.ops_per_cpu_s,"
		    " 'metrics', (SELECT json_group_object(m.name, m.value) FROM sample_metrics m"
		    "  WHERE m.sample_id = s.id),"
		    " 'unavailable', (SELECT json_group_object(m.name, m.why) FROM sample_metrics m"
		    "  WHERE m.sample_id = s.id AND NOT m.available))"
		    " FROM samples s JOIN configs c ON c.id = s.config_id"
		    " WHERE s.experiment_id = ?1 ORDER BY s.id",
		    &stmt))
		return -1;
	sqlite3_bind_int64(stmt, 1, exp_id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		ret = fn(arg, col_text(stmt, 0));
		if (ret)
			break;
	}
	sqlite3_finalize(stmt);
	if (!ret && rc != SQLITE_DONE)
		return st_error(st, "cannot read the samples");
	return ret;
}

void store_strings_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The first column of every row of stmt as strings; finalizes stmt. */
static int collect_strings(struct store *st, sqlite3_stmt *stmt, char ***out, size_t *n,
			   const char *what)
{
	char **v = NULL;
	size_t cnt = 0;
	int rc;

	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		v = xrealloc(v, (cnt + 1) * sizeof(*v));
		v[cnt++] = xstrdup(col_text(stmt, 0));
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE) {
		store_strings_free(v, cnt);
		return st_error(st, what);
	}
	*out = v;
	*n = cnt;
	return 0;
}
int store_distinct(struct store *st, enum store_field field, char ***vals, size_t *n)
{
	/* Column names come from this table only, never from input. */
	static const char *const sql[] = {
		[STORE_FIELD_WORKLOAD] = "SELECT DISTINCT workload FROM experiments"
					 " WHERE workload IS NOT NULL ORDER BY 1",
		[STORE_FIELD_PROFILE] = "SELECT DISTINCT profile FROM experiments"
					" WHERE profile IS NOT NULL ORDER BY 1",
		[STORE_FIELD_LABEL] = "SELECT DISTINCT label FROM experiments"
				      " WHERE label IS NOT NULL ORDER BY 1",
		[STORE_FIELD_KERNEL] =
			"SELECT DISTINCT kernel FROM experiments"
			" WHERE kernel IS NOT NULL ORDER BY 1 COLLATE kernel_version",
		[STORE_FIELD_HOST] = "SELECT DISTINCT host FROM experiments"
				     " WHERE host IS NOT NULL ORDER BY 1",
	};
	sqlite3_stmt *stmt;

	*vals = NULL;
	*n = 0;
	if ((unsigned)field >= ARRAY_SIZE(sql))
		BUG("store field %d", (int)field);
	if (prepare(st, sql[field], &stmt))
		return -1;
	return collect_strings(st, stmt, vals, n, "cannot read the stored values");
}

int store_metric_names(struct store *st, const struct store_filter *f, char ***names, size_t *n)
{
	sqlite3_stmt *stmt;

	*names = NULL;
	*n = 0;
	if (prepare(st,
		    "SELECT m.name FROM experiments e JOIN experiment_metrics m"
		    " ON m.experiment_id = e.id WHERE" SQL_FILTER
		    " GROUP BY m.name ORDER BY min(m.pos), m.name",
		    &stmt))
		return -1;
	bind_filter(stmt, f);
	return collect_strings(st, stmt, names, n, "cannot read the metric names");
}

/* "a|b|c" of the n values (malloc'd), or "none". */
static char *join_bar(char *const *vals, size_t n)
{
	size_t len = 5, k;
	char *list;

	for (k = 0; k < n; k++)
		len += strlen(vals[k]) + 1;
	list = xmalloc(len);
	strcpy(list, n ? "" : "none");
	for (k = 0; k < n; k++) {
		if (k)
			strcat(list, "|");
		strcat(list, vals[k]);
	}
	return list;
}

/*
 * Kernel value v against the stored releases: exact, else the unique
 * release it is a prefix of (*resolved, malloc'd). -1 after saying why.
 */
static int kernel_prefix(char *const *vals, size_t n, const char *v, const char *cmd,
			 char **resolved)
{
	char **hits = xcalloc(n + 1, sizeof(*hits));
	size_t k, nh = 0;
	int ret = 0;
	char *list;

	*resolved = NULL;
	for (k = 0; k < n; k++) {
		if (!strcmp(vals[k], v)) {
			free(hits);
			return 0;
		}
		/* the start of a release up to a separator: 6.1 is not 6.18's start */
		if (!strncmp(vals[k], v, strlen(v)) && vals[k][strlen(v)] &&
		    strchr(".-+_~", vals[k][strlen(v)]))
			hits[nh++] = vals[k];
	}
	if (nh == 1) {
		*resolved = xstrdup(hits[0]);
	} else {
		list = join_bar(nh ? hits : vals, nh ? nh : n);
		ret = nh ? error("%s: option '--kernel': '%s' is the start of %zu stored releases, "
				 "allowed one of %s",
				 cmd, v, nh, list)
			 : error("%s: option '--kernel': no stored experiment has '%s', stored %s",
				 cmd, v, list);
		free(list);
	}
	free(hits);
	return ret;
}

/* The kernel list of f with each prefix replaced by the release it names. */
static int resolve_kernels(struct store *st, struct store_filter *f, const char *cmd)
{
	char **vals;
	size_t n, i;
	int ret = 0;

	if (!f->kernel.n)
		return 0;
	if (store_distinct(st, STORE_FIELD_KERNEL, &vals, &n))
		return -1;
	f->kernel_owned = xcalloc(f->kernel.n, sizeof(*f->kernel_owned));
	for (i = 0; i < f->kernel.n; i++) {
		char *r;

		if (kernel_prefix(vals, n, f->kernel.v[i], cmd, &r)) {
			ret = -1;
			continue;
		}
		f->kernel_owned[i] = r ? r : f->kernel.v[i];
		if (r) {
			f->kernel_names = xrealloc(
				f->kernel_names, (f->nkernel_names + 1) * sizeof(*f->kernel_names));
			f->kernel_names[f->nkernel_names++] = r;
		}
	}
	f->kernel.v = f->kernel_owned;
	store_strings_free(vals, n);
	return ret;
}

int store_filter_check(struct store *st, struct store_filter *f, const char *cmd)
{
	const struct {
		enum store_field field;
		const char *option;
		const struct strlist *values;
	} checks[] = {
		{ STORE_FIELD_WORKLOAD, "workload", &f->workload },
		{ STORE_FIELD_PROFILE, "profile", &f->profile },
		{ STORE_FIELD_LABEL, "label", &f->label },
		{ STORE_FIELD_HOST, "host", &f->host },
	};
	size_t i, j, k, n;
	int ret = resolve_kernels(st, f, cmd);

	for (i = 0; i < ARRAY_SIZE(checks); i++) {
		char **vals, *list;

		if (!checks[i].values->n)
			continue;
		if (store_distinct(st, checks[i].field, &vals, &n))
			return -1;
		for (j = 0; j < checks[i].values->n; j++) {
			const char *v = checks[i].values->v[j];

			for (k = 0; k < n && strcmp(vals[k], v); k++)
				;
			if (k < n)
				continue;
			list = join_bar(vals, n);
			ret = error("%s: option '--%s': no stored experiment has '%s', stored %s",
				    cmd, checks[i].option, v, list);
			free(list);
		}
		store_strings_free(vals, n);
	}
	return ret;
}

void store_filter_release(struct store_filter *f)
{
	size_t i;

	for (i = 0; i < f->nkernel_names; i++)
		free(f->kernel_names[i]);
	free(f->kernel_names);
	free(f->kernel_owned);
	f->kernel_names = NULL;
	f->kernel_owned = NULL;
	f->nkernel_names = 0;
}

/* A day that exists: strptime() takes 2026-02-30 (and mktime() makes it 2 March). */
static bool real_day(const struct tm *tm)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	long year = tm->tm_year + 1900L;
	bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

	if (tm->tm_mon < 0 || tm->tm_mon > 11 || tm->tm_mday < 1 || tm->tm_sec > 59)
		return false;
	return tm->tm_mday <= days[tm->tm_mon] + (tm->tm_mon == 1 && leap);
}

int store_parse_since(const char *s, uint64_t *since_ns)
{
	static const char *const formats[] = { "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M",
					       "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d" };
	uint64_t ago_ns;
	size_t i;

	if (!s || !*s)
		return -1;
	for (i = 0; i < ARRAY_SIZE(formats); i++) {
		struct tm tm;
		const char *end;
		time_t t;

		memset(&tm, 0, sizeof(tm));
		end = strptime(s, formats[i], &tm);
		if (!end || *end)
			continue;
		if (!real_day(&tm))
			return -1;
		tm.tm_isdst = -1;
		t = mktime(&tm);
		if (t == (time_t)-1 || t < 0)
			return -1;
		*since_ns = (uint64_t)t * 1000000000ull;
		return 0;
	}
	if (parse_duration_ns(s, &ago_ns))
		return -1;
	*since_ns = realtime_ns() > ago_ns ? realtime_ns() - ago_ns : 1;
	return 0;
}

/* ---- merging ---- */

static int query_int64(struct store *st, const char *sql, int64_t *out)
{
	sqlite3_stmt *stmt;
	int rc;

	if (prepare(st, sql, &stmt))
		return -1;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(stmt, 0);
	sqlite3_finalize(stmt);
	if (rc != SQLITE_ROW)
		return st_error(st, "cannot read the store");
	return 0;
}

/* A merge that failed is the source's problem: name it, not the destination. */
static int import_error(struct store *dst, const char *src_path, const char *what)
{
	return error("import: '%s': %s: %s", src_path, what, sqlite3_errmsg(dst->db));
}

/* Step a statement of a merge to completion. */
static int import_step(struct store *dst, const char *src_path, sqlite3_stmt *stmt,
		       const char *what)
{
	int rc = sqlite3_step(stmt);

	sqlite3_reset(stmt);
	return rc == SQLITE_DONE ? 0 : import_error(dst, src_path, what);
}

/* Run one INSERT ... SELECT of the merge with the id offsets bound. */
static int merge_step(struct store *st, const char *src_path, const char *sql, int64_t eoff,
		      int64_t coff, int64_t soff)
{
	sqlite3_stmt *stmt;
	int ret;

	if (prepare(st, sql, &stmt))
		return -1;
	sqlite3_bind_int64(stmt, 1, eoff);
	if (sqlite3_bind_parameter_count(stmt) >= 2)
		sqlite3_bind_int64(stmt, 2, coff);
	if (sqlite3_bind_parameter_count(stmt) >= 3)
		sqlite3_bind_int64(stmt, 3, soff);
	ret = import_step(st, src_path, stmt, "cannot merge it");
	sqlite3_finalize(stmt);
	return ret;
}

static const char *const merge_sql[] = {
	"INSERT INTO main.experiments (id, uuid, kind, workload, profile, params, cmdline,"
	" version, label, host, kernel, started_ns, ended_ns, status, owner_pid,"
	" owner_start_ticks, owner_boot_id)"
	" SELECT id + ?1, uuid, kind, workload, profile, params, cmdline, version, label, host,"
	" kernel, started_ns, ended_ns, status, owner_pid, owner_start_ticks, owner_boot_id"
	" FROM src.experiments WHERE id IN (SELECT id FROM temp.merge_exps) ORDER BY id",

	"INSERT INTO main.configs (id, experiment_id, name, features)"
	" SELECT id + ?2, experiment_id + ?1, name, features FROM src.configs"
	" WHERE experiment_id IN (SELECT id FROM temp.merge_exps) ORDER BY id",

	"INSERT INTO main.samples (id, experiment_id, config_id, idx, warmup, status, reason,"
	" start_realtime_ns, duration_ns, wall_ns, instances, ops, real_s, usr_s, sys_s,"
	" ops_per_s, ops_per_cpu_s)"
	" SELECT id + ?3, experiment_id + ?1, config_id + ?2, idx, warmup, status, reason,"
	" start_realtime_ns, duration_ns, wall_ns, instances, ops, real_s, usr_s, sys_s,"
	" ops_per_s, ops_per_cpu_s FROM src.samples"
	" WHERE experiment_id IN (SELECT id FROM temp.merge_exps) ORDER BY id",

	"INSERT INTO main.sample_metrics (sample_id, pos, name, value, available, why, better,"
	" flags)"
	" SELECT m.sample_id + ?3, m.pos, m.name, m.value, m.available, m.why, m.better, m.flags"
	" FROM src.sample_metrics m JOIN src.samples s ON s.id = m.sample_id"
	" WHERE s.experiment_id IN (SELECT id FROM temp.merge_exps) AND ?1 = ?1 AND ?2 = ?2"
	" ORDER BY m.sample_id, m.pos",

	"INSERT INTO main.experiment_metrics (experiment_id, name, pos, better, flags)"
	" SELECT experiment_id + ?1, name, pos, better, flags FROM src.experiment_metrics"
	" WHERE experiment_id IN (SELECT id FROM temp.merge_exps)",

	"INSERT INTO main.env (experiment_id, phase, key, value, impact)"
	" SELECT experiment_id + ?1, phase, key, value, impact FROM src.env"
	" WHERE experiment_id IN (SELECT id FROM temp.merge_exps)",
};

/* ---- checking a foreign store ---- */

static void sig_add(char **buf, size_t *len, size_t *alloc, const char *text)
{
	size_t n = strlen(text);

	if (*len + n + 2 > *alloc) {
		*alloc = (*len + n + 2) * 2;
		*buf = xrealloc(*buf, *alloc);
	}
	memcpy(*buf + *len, text, n);
	*len += n;
	(*buf)[(*len)++] = '\n';
	(*buf)[*len] = '\0';
}

/* Every row of a pragma query on one object, as "|"-joined lines. */
static int sig_rows(sqlite3 *db, const char *sql, const char *name, const char *schema,
		    const char *indent, char **buf, size_t *len, size_t *alloc)
{
	sqlite3_stmt *stmt;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(stmt, 1, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(stmt, 2, schema, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		char line[1024];
		size_t off = (size_t)snprintf(line, sizeof(line), "%s", indent);
		int i;

		for (i = 0; i < sqlite3_column_count(stmt) && off < sizeof(line); i++)
			off += (size_t)snprintf(
				line + off, sizeof(line) - off, "%s%s", i ? "|" : "",
				sqlite3_column_type(stmt, i) == SQLITE_NULL ? "NULL"
									    : col_text(stmt, i));
		sig_add(buf, len, alloc, line);
	}
	sqlite3_finalize(stmt);
	return rc == SQLITE_DONE ? 0 : -1;
}

/*
 * The shape of a schema ("main", "src"): every object's type and name, each
 * table's columns (name, type, NOT NULL, default, key, hidden or generated)
 * and kind (WITHOUT ROWID, STRICT), each index's columns and origin. One
 * line per fact; objects by type and name. Row counts and page numbers are
 * not part of it.
 */
static int schema_signature(sqlite3 *db, const char *schema, char **out)
{
	char *sql = xasprintf("SELECT type, name, tbl_name FROM \"%s\".sqlite_master"
			      " ORDER BY type, name",
			      schema);
	char *buf = NULL;
	size_t len = 0, alloc = 0;
	sqlite3_stmt *stmt;
	int rc, ret = 0;

	*out = NULL;
	rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return -1;
	sig_add(&buf, &len, &alloc, "schema");
	while (!ret && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		const char *type = col_text(stmt, 0), *name = col_text(stmt, 1);
		char *head = xasprintf("%s %s on %s", type, name, col_text(stmt, 2));

		sig_add(&buf, &len, &alloc, head);
		free(head);
		if (!strcmp(type, "table"))
			ret = sig_rows(db,
				       "SELECT type, ncol, wr, strict FROM pragma_table_list"
				       " WHERE name = ?1 AND schema = ?2",
				       name, schema, "  kind ", &buf, &len, &alloc) ||
			      sig_rows(db,
				       "SELECT cid, name, type, \"notnull\", dflt_value, pk, hidden"
				       " FROM pragma_table_xinfo(?1, ?2) ORDER BY cid",
				       name, schema, "  column ", &buf, &len, &alloc) ||
			      sig_rows(db,
				       "SELECT name, \"unique\", origin, partial"
				       " FROM pragma_index_list(?1, ?2) ORDER BY name",
				       name, schema, "  index ", &buf, &len, &alloc);
		else if (!strcmp(type, "index"))
			ret = sig_rows(db,
				       "SELECT seqno, cid, name, \"desc\", coll, key"
				       " FROM pragma_index_xinfo(?1, ?2) ORDER BY seqno",
				       name, schema, "  key ", &buf, &len, &alloc);
	}
	sqlite3_finalize(stmt);
	if (ret || rc != SQLITE_DONE) {
		free(buf);
		return -1;
	}
	*out = buf;
	return 0;
}

/* The first line of a that b lacks, after the object it belongs to; or NULL. */
static char *first_extra_line(const char *a, const char *b)
{
	const char *p = a, *head = a;
	size_t headlen = 0;

	while (*p) {
		size_t n = strcspn(p, "\n");
		const char *q = b;
		bool found = false;

		if (*p != ' ') {
			head = p;
			headlen = n;
		}
		while (*q && !found) {
			size_t m = strcspn(q, "\n");

			found = m == n && !memcmp(p, q, n);
			q += m + (q[m] == '\n');
		}
		if (!found)
			return *p == ' ' ? xasprintf("%.*s:%.*s", (int)headlen, head, (int)n, p)
					 : xasprintf("%.*s", (int)n, p);
		p += n + (p[n] == '\n');
	}
	return NULL;
}

/*
 * Refuse a schema that is not exactly the one wakebench writes at version:
 * no other table, index, view or trigger, no other column.
 */
static int verify_schema(sqlite3 *db, const char *schema, int version, const char *path)
{
	char *want = NULL, *got = NULL, *extra;
	sqlite3 *ref = NULL;
	int v, ret = -1;

	if (sqlite3_open(":memory:", &ref) != SQLITE_OK)
		goto out;
	for (v = 0; v < version; v++)
		if (exec(ref, ":memory:", migrations[v]))
			goto out;
	if (schema_signature(ref, "main", &want)) {
		db_error(ref, ":memory:", "cannot read the reference schema");
		goto out;
	}
	if (schema_signature(db, schema, &got)) {
		db_error(db, path, "cannot read the schema");
		goto out;
	}
	if (!strcmp(want, got)) {
		ret = 0;
		goto out;
	}
	extra = first_extra_line(got, want);
	if (!extra)
		extra = first_extra_line(want, got);
	error("'%s' is not a wakebench store: its schema is not the one wakebench writes at "
	      "version %d (at '%s')",
	      path, version, extra ? extra : "?");
	free(extra);
out:
	free(want);
	free(got);
	sqlite3_close(ref);
	return ret;
}

/*
 * Open another store (an import's source, a vm guest's) for reading: read
 * only and creating nothing, triggers and views off, its schema checked to
 * be exactly wakebench's, its integrity checked; an older schema is
 * upgraded in memory.
 */
static int open_foreign(const char *path, sqlite3 **out, int *guard, bool *immutable)
{
	sqlite3 *db = NULL;
	struct stat sb;
	char *integrity;
	int version;

	*out = NULL;
	*guard = -1;
	if (stat(path, &sb))
		return error_errno("cannot open store '%s'", path);
	if (!S_ISREG(sb.st_mode))
		return error("'%s' is not a wakebench store (not a regular file)", path);
	if (check_header(path, sb.st_size, &version))
		return -1;
	if (version < 0)
		return error("store '%s' is empty: nothing stored yet", path);
	if (open_read(path, true, &db, immutable, guard) || check_schema(db, path, &version) ||
	    verify_schema(db, "main", version, path))
		goto fail;
	integrity = NULL;
	{
		sqlite3_stmt *stmt;

		if (sqlite3_prepare_v2(db, "PRAGMA integrity_check(1)", -1, &stmt, NULL) ==
		    SQLITE_OK) {
			if (sqlite3_step(stmt) == SQLITE_ROW)
				integrity = xstrdup(col_text(stmt, 0));
			sqlite3_finalize(stmt);
		}
	}
	if (!integrity || strcmp(integrity, "ok")) {
		error("store '%s' is damaged: %s", path,
		      integrity ? integrity : sqlite3_errmsg(db));
		free(integrity);
		goto fail;
	}
	free(integrity);
	if (version < STORE_VERSION &&
	    (copy_to_memory(&db, path, true) || apply_migrations(db, path, STORE_VERSION)))
		goto fail;
	*out = db;
	return 0;
fail:
	sqlite3_close(db);
	if (*guard >= 0)
		close(*guard);
	*guard = -1;
	return -1;
}

/*
 * What every stored value of an imported experiment must be (typeof() of
 * SQLite): a store that wakebench wrote always satisfies these, so a row
 * that does not was crafted or damaged, and the file is refused.
 */
struct value_rule {
	const char *table, *column;
	const char *types;  /* SQL list of typeof() results allowed */
	const char *expect; /* for the message */
};

#define T_TEXT	    "'text'"
#define T_TEXT_NULL "'text', 'null'"
#define T_INT	    "'integer'"
#define T_INT_NULL  "'integer', 'null'"
#define T_NUM_NULL  "'integer', 'real', 'null'"

static const struct value_rule store_rules[] = {
	{ "experiments", "uuid", T_TEXT, "text" },
	{ "experiments", "kind", T_TEXT, "text" },
	{ "experiments", "workload", T_TEXT, "text" },
	{ "experiments", "profile", T_TEXT_NULL, "text or null" },
	{ "experiments", "params", T_TEXT_NULL, "text or null" },
	{ "experiments", "cmdline", T_TEXT_NULL, "text or null" },
	{ "experiments", "version", T_TEXT_NULL, "text or null" },
	{ "experiments", "label", T_TEXT_NULL, "text or null" },
	{ "experiments", "host", T_TEXT_NULL, "text or null" },
	{ "experiments", "kernel", T_TEXT_NULL, "text or null" },
	{ "experiments", "started_ns", T_INT, "an integer" },
	{ "experiments", "ended_ns", T_INT_NULL, "an integer or null" },
	{ "experiments", "status", T_TEXT, "text" },
	{ "experiments", "owner_pid", T_INT_NULL, "an integer or null" },
	{ "experiments", "owner_start_ticks", T_INT_NULL, "an integer or null" },
	{ "experiments", "owner_boot_id", T_TEXT_NULL, "text or null" },
	{ "configs", "experiment_id", T_INT, "an integer" },
	{ "configs", "name", T_TEXT, "text" },
	{ "configs", "features", T_TEXT_NULL, "text or null" },
	{ "samples", "config_id", T_INT, "an integer" },
	{ "samples", "idx", T_INT, "an integer" },
	{ "samples", "warmup", T_INT, "an integer" },
	{ "samples", "status", T_TEXT, "text" },
	{ "samples", "reason", T_TEXT_NULL, "text or null" },
	{ "samples", "start_realtime_ns", T_INT_NULL, "an integer or null" },
	{ "samples", "duration_ns", T_INT_NULL, "an integer or null" },
	{ "samples", "wall_ns", T_INT_NULL, "an integer or null" },
	{ "samples", "instances", T_INT_NULL, "an integer or null" },
	{ "samples", "ops", T_INT_NULL, "an integer or null" },
	{ "samples", "real_s", T_NUM_NULL, "a number or null" },
	{ "samples", "usr_s", T_NUM_NULL, "a number or null" },
	{ "samples", "sys_s", T_NUM_NULL, "a number or null" },
	{ "samples", "ops_per_s", T_NUM_NULL, "a number or null" },
	{ "samples", "ops_per_cpu_s", T_NUM_NULL, "a number or null" },
	{ "sample_metrics", "pos", T_INT, "an integer" },
	{ "sample_metrics", "name", T_TEXT, "text" },
	{ "sample_metrics", "value", T_NUM_NULL, "a number or null" },
	{ "sample_metrics", "available", T_INT, "an integer" },
	{ "sample_metrics", "why", T_TEXT_NULL, "text or null" },
	{ "sample_metrics", "better", T_INT, "an integer" },
	{ "sample_metrics", "flags", T_INT, "an integer" },
	{ "experiment_metrics", "name", T_TEXT, "text" },
	{ "experiment_metrics", "pos", T_INT, "an integer" },
	{ "experiment_metrics", "better", T_INT, "an integer" },
	{ "experiment_metrics", "flags", T_INT, "an integer" },
	{ "env", "phase", T_TEXT, "text" },
	{ "env", "key", T_TEXT, "text" },
	{ "env", "value", T_TEXT_NULL, "text or null" },
	{ "env", "impact", T_INT, "an integer" },
};

/* The rows of a src table that belong to the experiments being merged, and their UUID. */
static void rule_scope(const char *table, const char **scope, const char **owner)
{
	if (!strcmp(table, "experiments")) {
		*scope = "x.id IN (SELECT id FROM temp.merge_exps)";
		*owner = "x.uuid";
	} else if (!strcmp(table, "sample_metrics")) {
		*scope = "x.sample_id IN (SELECT s.id FROM src.samples s"
			 " WHERE s.experiment_id IN (SELECT id FROM temp.merge_exps))";
		*owner = "(SELECT e.uuid FROM src.samples s JOIN src.experiments e"
			 " ON e.id = s.experiment_id WHERE s.id = x.sample_id)";
	} else {
		*scope = "x.experiment_id IN (SELECT id FROM temp.merge_exps)";
		*owner = "(SELECT e.uuid FROM src.experiments e WHERE e.id = x.experiment_id)";
	}
}

/* Run a check query; a row is a problem: "UUID", "what is wrong". */
static int check_query(struct store *dst, const char *src_path, const char *sql)
{
	sqlite3_stmt *stmt;
	int rc;

	if (prepare(dst, sql, &stmt))
		return -1;
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		char *uuid = text_printable(col_text(stmt, 0), 0);
		char *what = text_printable(col_text(stmt, 1), 0);

		error("import: '%s' is refused: experiment %s: %s", src_path,
		      *uuid ? uuid : "(no uuid)", what);
		free(uuid);
		free(what);
		sqlite3_finalize(stmt);
		return -1;
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE)
		return error("import: '%s': cannot check it: %s", src_path,
			     sqlite3_errmsg(dst->db));
	return 0;
}

/* A UUID as uuid_unparse_lower() writes it (8-4-4-4-12 hex digits), not the nil one. */
#define HEX4	  "[0-9a-f][0-9a-f][0-9a-f][0-9a-f]"
#define UUID_GLOB HEX4 HEX4 "-" HEX4 "-" HEX4 "-" HEX4 "-" HEX4 HEX4 HEX4
#define UUID_NIL  "00000000-0000-0000-0000-000000000000"

bool store_is_file(const struct store *st, int fd)
{
	return same_file(fd, st->path);
}

bool store_uuid_valid(const char *s)
{
	size_t i;

	for (i = 0; i < 36; i++)
		if (i == 8 || i == 13 || i == 18 || i == 23
			    ? s[i] != '-'
			    : !strchr("0123456789abcdef", s[i]) || !s[i])
			return false;
	return !s[36] && strcmp(s, UUID_NIL);
}

/* Other checks of a store's rows: references and values beyond their type. */
static const char *const store_checks[] = {
	/* a sample's config is one of its own experiment's */
	"SELECT (SELECT e.uuid FROM src.experiments e WHERE e.id = x.experiment_id),"
	" 'sample ' || x.idx || ' refers to config ' || quote(x.config_id)"
	" || ', which is not one of its experiment''s'"
	" FROM src.samples x WHERE x.experiment_id IN (SELECT id FROM temp.merge_exps)"
	" AND NOT EXISTS (SELECT 1 FROM src.configs c WHERE c.id = x.config_id"
	"  AND c.experiment_id = x.experiment_id) LIMIT 1",

	"SELECT x.uuid, 'its uuid ' || quote(x.uuid) || ' is not a UUID'"
	" FROM src.experiments x WHERE x.id IN (SELECT id FROM temp.merge_exps)"
	" AND NOT (x.uuid GLOB '" UUID_GLOB "' AND x.uuid != '" UUID_NIL "') LIMIT 1",

	"SELECT (SELECT e.uuid FROM src.experiments e WHERE e.id = x.experiment_id),"
	" 'environment key ' || quote(x.key) || ' has impact ' || x.impact"
	" || ', not 0 (strong) to 4 (run)'"
	" FROM src.env x WHERE x.experiment_id IN (SELECT id FROM temp.merge_exps)"
	" AND x.impact NOT BETWEEN 0 AND 4 LIMIT 1",
};

static int check_store_values(struct store *dst, const char *src_path)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(store_rules); i++) {
		const struct value_rule *r = &store_rules[i];
		const char *scope, *owner;
		char *sql;
		int ret;

		rule_scope(r->table, &scope, &owner);
		sql = xasprintf("SELECT %s, '%s.%s is ' || typeof(x.%s) || ' ('"
				" || substr(quote(x.%s), 1, 40) || '), expected %s'"
				" FROM src.%s x WHERE %s AND typeof(x.%s) NOT IN (%s) LIMIT 1",
				owner, r->table, r->column, r->column, r->column, r->expect,
				r->table, scope, r->column, r->types);
		ret = check_query(dst, src_path, sql);
		free(sql);
		if (ret)
			return -1;
	}
	for (i = 0; i < ARRAY_SIZE(store_checks); i++)
		if (check_query(dst, src_path, store_checks[i]))
			return -1;
	return 0;
}

/*
 * Provenance of imported environment keys. Keys under "vm." and "lava."
 * are attested by the machine that imports (a vm host about its guest, a
 * LAVA job's log about its job), not by the one that ran the experiment:
 * in a file they are only claims, so every such key of the imported
 * experiments is renamed "claimed.KEY" (kept, and apart from attested
 * ones), except under opts->attest_prefix, the channel this import comes
 * through: those are dropped, whatever the source said, and opts->env is
 * added to the start phase of each. ids: the added experiments in dst.
 */
static const char *const attested_prefixes[] = { "vm.", "lava." };

static int add_attested_env(struct store *dst, const struct store_import_opts *opts,
			    const int64_t *ids, size_t n)
{
	const char *own = opts && opts->attest_prefix ? opts->attest_prefix : "";
	sqlite3_stmt *del = NULL, *ren = NULL, *ins = NULL;
	size_t i, k;
	int ret = -1;

	if (prepare(dst,
		    "DELETE FROM main.env WHERE experiment_id = ?1 AND ?2 != ''"
		    " AND substr(key, 1, length(?2)) = ?2",
		    &del) ||
	    prepare(dst,
		    "UPDATE OR REPLACE main.env SET key = 'claimed.' || key"
		    " WHERE experiment_id = ?1 AND substr(key, 1, length(?2)) = ?2",
		    &ren) ||
	    prepare(dst, SQL_INSERT_ENV, &ins))
		goto out;
	for (i = 0; i < n; i++) {
		sqlite3_bind_int64(del, 1, ids[i]);
		sqlite3_bind_text(del, 2, own, -1, SQLITE_STATIC);
		if (step_done(dst, del, "cannot store the attested environment"))
			goto out;
		for (k = 0; k < ARRAY_SIZE(attested_prefixes); k++) {
			if (!strcmp(attested_prefixes[k], own))
				continue;
			sqlite3_bind_int64(ren, 1, ids[i]);
			sqlite3_bind_text(ren, 2, attested_prefixes[k], -1, SQLITE_STATIC);
			if (step_done(dst, ren, "cannot store the claimed environment"))
				goto out;
		}
		for (k = 0; opts && opts->env && k < opts->env->n; k++)
			if (insert_env(dst, ins, ids[i], "start", opts->env->e[k].key,
				       opts->env->e[k].value, opts->env->e[k].impact))
				goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(del);
	sqlite3_finalize(ren);
	sqlite3_finalize(ins);
	return ret;
}

/* ---- merging an export document (JSON) with SQLite's JSON functions ---- */

/* impact_code(NAME): enum impact of an impact name; unknown names count as per-run. */
static void impact_code_fn(sqlite3_context *cx, int argc, sqlite3_value **argv)
{
	const unsigned char *name = sqlite3_value_text(argv[0]);
	int code = name ? env_impact_parse((const char *)name) : -1;

	(void)argc;
	sqlite3_result_int(cx, code < 0 ? IMPACT_RUN : code);
}

/* One step of the JSON merge with the id offsets bound (:eoff, :soff). */
static int json_step(struct store *st, const char *src_path, const char *sql, int64_t eoff,
		     int64_t soff)
{
	sqlite3_stmt *stmt;
	int i, ret;

	if (prepare(st, sql, &stmt))
		return -1;
	if ((i = sqlite3_bind_parameter_index(stmt, ":eoff")))
		sqlite3_bind_int64(stmt, i, eoff);
	if ((i = sqlite3_bind_parameter_index(stmt, ":soff")))
		sqlite3_bind_int64(stmt, i, soff);
	ret = import_step(st, src_path, stmt, "cannot merge it");
	sqlite3_finalize(stmt);
	return ret;
}

static const char *const json_merge_sql[] = {
	"INSERT INTO main.experiments (id, uuid, kind, workload, profile, params, cmdline,"
	" version, label, host, kernel, started_ns, ended_ns, status)"
	" SELECT :eoff + k + 1, uuid, coalesce(json_extract(v, '$.kind'), 'run'),"
	" coalesce(json_extract(v, '$.workload'), 'unknown'), json_extract(v, '$.profile'),"
	" json_extract(v, '$.params'), json_extract(v, '$.cmdline'), json_extract(v, '$.version'),"
	" json_extract(v, '$.label'), json_extract(v, '$.host'), json_extract(v, '$.kernel'),"
	" coalesce(json_extract(v, '$.started_ns'), 0), json_extract(v, '$.ended_ns'),"
	" coalesce(json_extract(v, '$.status'), 'interrupted')"
	" FROM temp.merge_jexp ORDER BY k",

	"INSERT INTO main.configs (experiment_id, name, features)"
	" SELECT :eoff + j.k + 1, json_extract(c.value, '$.name'),"
	" json_extract(c.value, '$.features')"
	" FROM temp.merge_jexp j, json_each(j.v, '$.configs') c ORDER BY j.k, c.key",

	"INSERT INTO main.experiment_metrics (experiment_id, name, pos, better, flags)"
	" SELECT :eoff + j.k + 1, json_extract(d.value, '$.name'), d.key,"
	" CASE json_extract(d.value, '$.better') WHEN 'higher' THEN 1 WHEN 'lower' THEN -1"
	" ELSE 0 END, CASE WHEN json_extract(d.value, '$.evidence') THEN 1 ELSE 0 END"
	" FROM temp.merge_jexp j, json_each(j.v, '$.metrics') d",

	"INSERT INTO main.env (experiment_id, phase, key, value, impact)"
	" SELECT :eoff + j.k + 1, p.key, json_extract(e.value, '$.key'),"
	" json_extract(e.value, '$.value'), impact_code(json_extract(e.value, '$.impact'))"
	" FROM temp.merge_jexp j, json_each(j.v, '$.env') p, json_each(p.value) e",

	"INSERT INTO main.samples (id, experiment_id, config_id, idx, warmup, status, reason,"
	" start_realtime_ns, duration_ns, wall_ns, instances, ops, real_s, usr_s, sys_s,"
	" ops_per_s, ops_per_cpu_s)"
	" SELECT :soff + s.id, :eoff + s.k + 1, (SELECT c.id FROM main.configs c"
	"  WHERE c.experiment_id = :eoff + s.k + 1 AND c.name = json_extract(s.v, '$.config')),"
	" json_extract(s.v, '$.index'), json_extract(s.v, '$.warmup'),"
	" json_extract(s.v, '$.status'), json_extract(s.v, '$.reason'),"
	" json_extract(s.v, '$.start_realtime_ns'), json_extract(s.v, '$.duration_ns'),"
	" json_extract(s.v, '$.wall_ns'), json_extract(s.v, '$.instances'),"
	" json_extract(s.v, '$.ops'), json_extract(s.v, '$.real_s'), json_extract(s.v, '$.usr_s'),"
	" json_extract(s.v, '$.sys_s'), json_extract(s.v, '$.ops_per_s'),"
	" json_extract(s.v, '$.ops_per_cpu_s')"
	" FROM temp.merge_jsmp s ORDER BY s.id",

	"INSERT INTO main.sample_metrics (sample_id, pos, name, value, available, why, better,"
	" flags)"
	" SELECT :soff + s.id, row_number() OVER (PARTITION BY s.id ORDER BY m.id) - 1, m.key,"
	" CASE WHEN m.type = 'null' THEN NULL ELSE m.value END, m.type != 'null',"
	" CASE WHEN m.type = 'null' THEN json_extract(s.v, '$.unavailable.\"' || m.key || '\"')"
	" END, coalesce(em.better, 0), coalesce(em.flags, 0)"
	" FROM temp.merge_jsmp s JOIN json_each(s.v, '$.metrics') m"
	" LEFT JOIN main.experiment_metrics em"
	"  ON em.experiment_id = :eoff + s.k + 1 AND em.name = m.key",
};

/*
 * The types every member of an export's experiment must have (json_type();
 * a missing member counts as null). who names the element in the message;
 * from and elem say where the element is: "j" an experiment of
 * temp.merge_jexp, "c" a config, "d" a metric definition, "e" an
 * environment entry, "s" a sample of temp.merge_jsmp. With path "$", elem
 * is the element's type column of json_each().
 */
struct json_rule {
	const char *from, *elem, *who, *path, *types, *expect;
};

#define J_EXP	  "temp.merge_jexp j"
#define J_CFG	  "temp.merge_jexp j, json_each(j.v, '$.configs') c"
#define J_DEF	  "temp.merge_jexp j, json_each(j.v, '$.metrics') d"
#define J_ENV	  "temp.merge_jexp j, json_each(j.v, '$.env') p, json_each(p.value) e"
#define J_SMP	  "temp.merge_jsmp s JOIN temp.merge_jexp j ON j.k = s.k"
#define J_WHO_SMP "'sample ' || coalesce(json_extract(s.v, '$.index'), '?')"

static const struct json_rule json_rules[] = {
	/* containers first: the members below are read from them */
	{ J_EXP, "j.v", "'configs'", "$.configs", "'array', 'null'", "an array" },
	{ J_EXP, "j.v", "'metrics'", "$.metrics", "'array', 'null'", "an array" },
	{ J_EXP, "j.v", "'env'", "$.env", "'object', 'null'", "an object" },
	{ J_EXP, "j.v", "'samples'", "$.samples", "'array', 'null'", "an array" },
	{ J_CFG, "c.type", "'config ' || c.key", "$", "'object'", "an object" },
	{ J_DEF, "d.type", "'metric ' || d.key", "$", "'object'", "an object" },
	{ "temp.merge_jexp j, json_each(j.v, '$.env') p", "p.type",
	  "'environment ' || quote(p.key)", "$", "'array'", "an array" },
	{ J_ENV, "e.type", "'environment entry ' || e.key", "$", "'object'", "an object" },
	{ "temp.merge_jexp j, json_each(j.v, '$.samples') s", "s.type", "'sample ' || s.key", "$",
	  "'object'", "an object" },
	{ J_SMP, "s.v", J_WHO_SMP " || ' metrics'", "$.metrics", "'object', 'null'", "an object" },
	{ J_SMP, "s.v", J_WHO_SMP " || ' unavailable'", "$.unavailable", "'object', 'null'",
	  "an object" },

	{ J_EXP, "j.v", "'kind'", "$.kind", "'text', 'null'", "text" },
	{ J_EXP, "j.v", "'workload'", "$.workload", "'text', 'null'", "text" },
	{ J_EXP, "j.v", "'profile'", "$.profile", "'text', 'null'", "text" },
	{ J_EXP, "j.v", "'params'", "$.params", "'object', 'text', 'null'", "an object" },
	{ J_EXP, "j.v", "'cmdline'", "$.cmdline", "'text', 'null'", "text" },
	{ J_EXP, "j.v", "'version'", "$.version", "'text', 'null'", "text" },
	{ J_EXP, "j.v", "'label'", "$.label", "'text', 'null'", "text" },
	{ J_EXP, "j.v", "'host'", "$.host", "'text', 'null'", "text" },
	{ J_EXP, "j.v", "'kernel'", "$.kernel", "'text', 'null'", "text" },
	{ J_EXP, "j.v", "'started_ns'", "$.started_ns", "'integer', 'null'", "an integer" },
	{ J_EXP, "j.v", "'ended_ns'", "$.ended_ns", "'integer', 'null'", "an integer" },
	{ J_EXP, "j.v", "'status'", "$.status", "'text', 'null'", "text" },
	{ J_CFG, "c.value", "'config ' || c.key || ' name'", "$.name", "'text'", "text" },
	{ J_CFG, "c.value", "'config ' || c.key || ' features'", "$.features", "'text', 'null'",
	  "text" },
	{ J_DEF, "d.value", "'metric ' || d.key || ' name'", "$.name", "'text'", "text" },
	{ J_DEF, "d.value", "'metric ' || d.key || ' better'", "$.better", "'text', 'null'",
	  "text" },
	{ J_DEF, "d.value", "'metric ' || d.key || ' evidence'", "$.evidence",
	  "'true', 'false', 'null'", "true or false" },
	{ J_ENV, "e.value", "'environment key'", "$.key", "'text'", "text" },
	{ J_ENV, "e.value", "'environment value of ' || quote(json_extract(e.value, '$.key'))",
	  "$.value", "'text', 'null'", "text" },
	{ J_ENV, "e.value", "'environment impact of ' || quote(json_extract(e.value, '$.key'))",
	  "$.impact", "'text', 'null'", "text" },
	{ J_SMP, "s.v", J_WHO_SMP " || ' index'", "$.index", "'integer'", "an integer" },
	{ J_SMP, "s.v", J_WHO_SMP " || ' config'", "$.config", "'text'", "text" },
	{ J_SMP, "s.v", J_WHO_SMP " || ' warmup'", "$.warmup", "'true', 'false'", "true or false" },
	{ J_SMP, "s.v", J_WHO_SMP " || ' status'", "$.status", "'text'", "text" },
	{ J_SMP, "s.v", J_WHO_SMP " || ' reason'", "$.reason", "'text', 'null'", "text" },
	{ J_SMP, "s.v", J_WHO_SMP " || ' start_realtime_ns'", "$.start_realtime_ns",
	  "'integer', 'null'", "an integer" },
	{ J_SMP, "s.v", J_WHO_SMP " || ' duration_ns'", "$.duration_ns", "'integer', 'null'",
	  "an integer" },
	{ J_SMP, "s.v", J_WHO_SMP " || ' wall_ns'", "$.wall_ns", "'integer', 'null'",
	  "an integer" },
	{ J_SMP, "s.v", J_WHO_SMP " || ' instances'", "$.instances", "'integer', 'null'",
	  "an integer" },
	{ J_SMP, "s.v", J_WHO_SMP " || ' ops'", "$.ops", "'integer', 'null'", "an integer" },
	{ J_SMP, "s.v", J_WHO_SMP " || ' real_s'", "$.real_s", "'integer', 'real', 'null'",
	  "a number" },
	{ J_SMP, "s.v", J_WHO_SMP " || ' usr_s'", "$.usr_s", "'integer', 'real', 'null'",
	  "a number" },
	{ J_SMP, "s.v", J_WHO_SMP " || ' sys_s'", "$.sys_s", "'integer', 'real', 'null'",
	  "a number" },
	{ J_SMP, "s.v", J_WHO_SMP " || ' ops_per_s'", "$.ops_per_s", "'integer', 'real', 'null'",
	  "a number" },
	{ J_SMP, "s.v", J_WHO_SMP " || ' ops_per_cpu_s'", "$.ops_per_cpu_s",
	  "'integer', 'real', 'null'", "a number" },
};

/* Checks of an export beyond the members' types. */
static const char *const json_checks[] = {
	"SELECT j.uuid, " J_WHO_SMP " || ' metric ' || quote(m.key) || ' is ' || m.type"
	" || ', expected a number or null'"
	" FROM " J_SMP ", json_each(s.v, '$.metrics') m"
	" WHERE m.type NOT IN ('integer', 'real', 'null') LIMIT 1",

	"SELECT j.uuid, " J_WHO_SMP " || ' reason for ' || quote(m.key) || ' is ' || m.type"
	" || ', expected text'"
	" FROM " J_SMP ", json_each(s.v, '$.unavailable') m"
	" WHERE m.type != 'text' LIMIT 1",

	"SELECT j.uuid, " J_WHO_SMP " || ' names config '"
	" || quote(json_extract(s.v, '$.config')) || ', which its experiment does not have'"
	" FROM " J_SMP " WHERE NOT EXISTS (SELECT 1 FROM json_each(j.v, '$.configs') c"
	"  WHERE json_extract(c.value, '$.name') = json_extract(s.v, '$.config')) LIMIT 1",
};

static int check_json_values(struct store *dst, const char *path)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(json_rules); i++) {
		const struct json_rule *r = &json_rules[i];
		/* "$": the element's own type, from json_each (it may not be JSON text) */
		char *type = strcmp(r->path, "$")
				     ? xasprintf("coalesce(json_type(%s, '%s'), 'null')", r->elem,
						 r->path)
				     : xstrdup(r->elem);
		char *sql = xasprintf("SELECT j.uuid, %s || ' is ' || %s || ', expected %s'"
				      " FROM %s WHERE %s NOT IN (%s) LIMIT 1",
				      r->who, type, r->expect, r->from, type, r->types);
		int ret = check_query(dst, path, sql);

		free(type);
		free(sql);
		if (ret)
			return -1;
	}
	for (i = 0; i < ARRAY_SIZE(json_checks); i++)
		if (check_query(dst, path, json_checks[i]))
			return -1;
	return 0;
}

/*
 * The streamed merge of an export document (store.h): the parser hands over
 * each experiment's members but its samples, and each sample, as small
 * JSON objects; they wait in two temporary tables (on disk past SQLite's
 * cache, so memory stays bounded) until the document ends, then are
 * checked and merged with SQLite's JSON functions, each sample parsed on
 * its own (time linear in samples).
 */
int store_json_begin(struct store *dst, const char *name)
{
	if (writable(dst))
		return -1;
	free(dst->merge_name);
	dst->merge_name = xstrdup(name);
	dst->merge_total = 0;
	if (sqlite3_create_function(dst->db, "impact_code", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
				    NULL, impact_code_fn, NULL, NULL) != SQLITE_OK)
		return import_error(dst, name, "cannot merge it");
	if (exec(dst->db, dst->path, "BEGIN IMMEDIATE"))
		return -1;
	if (exec(dst->db, dst->path,
		 "CREATE TEMP TABLE merge_jexp (k INTEGER PRIMARY KEY, uuid TEXT NOT NULL UNIQUE,"
		 " v TEXT);"
		 "CREATE TEMP TABLE merge_jsmp (id INTEGER PRIMARY KEY, k INTEGER, v TEXT)") ||
	    prepare(dst,
		    "INSERT INTO temp.merge_jexp (k, uuid, v) SELECT ?1, ?2, ?3"
		    " WHERE ?2 NOT IN (SELECT uuid FROM main.experiments)",
		    &dst->ins_jexp) ||
	    prepare(dst, "INSERT INTO temp.merge_jsmp (k, v) VALUES (?1, ?2)", &dst->ins_jsmp)) {
		store_json_abort(dst);
		return -1;
	}
	return 0;
}

int store_json_experiment(struct store *dst, int64_t k, const char *uuid, const char *json,
			  size_t len)
{
	int rc;

	dst->merge_total++;
	sqlite3_bind_int64(dst->ins_jexp, 1, k);
	sqlite3_bind_text(dst->ins_jexp, 2, uuid, -1, SQLITE_STATIC);
	sqlite3_bind_text(dst->ins_jexp, 3, json, (int)len, SQLITE_STATIC);
	rc = sqlite3_step(dst->ins_jexp);
	sqlite3_reset(dst->ins_jexp);
	if (rc == SQLITE_CONSTRAINT_UNIQUE)
		return error(
			"import: '%s' is refused: experiment #%lld: its uuid %s comes twice in "
			"it",
			dst->merge_name, (long long)k, uuid);
	return rc == SQLITE_DONE ? 0 : import_error(dst, dst->merge_name, "cannot merge it");
}

int store_json_sample(struct store *dst, int64_t k, const char *json, size_t len)
{
	sqlite3_bind_int64(dst->ins_jsmp, 1, k);
	sqlite3_bind_text(dst->ins_jsmp, 2, json, (int)len, SQLITE_STATIC);
	return import_step(dst, dst->merge_name, dst->ins_jsmp, "cannot merge it");
}

/* The experiments of the document that were added, in its order (dst ids). */
static int merged_ids(struct store *dst, int64_t eoff, int64_t **ids, size_t *n)
{
	sqlite3_stmt *stmt;
	int rc;

	*ids = NULL;
	*n = 0;
	if (prepare(dst, "SELECT k FROM temp.merge_jexp ORDER BY k", &stmt))
		return -1;
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		*ids = xrealloc(*ids, (*n + 1) * sizeof(**ids));
		(*ids)[(*n)++] = eoff + sqlite3_column_int64(stmt, 0) + 1;
	}
	sqlite3_finalize(stmt);
	return rc == SQLITE_DONE ? 0 : import_error(dst, dst->merge_name, "cannot merge it");
}

int store_json_end(struct store *dst, const struct store_import_opts *opts, int64_t **new_exp_ids,
		   size_t *nadded, size_t *nskipped)
{
	const char *path = dst->merge_name;
	int64_t eoff, soff, *ids = NULL;
	size_t cnt = 0, i;

	/* the samples of experiments already present go with them */
	if (exec(dst->db, dst->path,
		 "DELETE FROM temp.merge_jsmp WHERE k NOT IN (SELECT k FROM temp.merge_jexp)") ||
	    check_json_values(dst, path) ||
	    query_int64(dst, "SELECT coalesce(max(id), 0) FROM main.experiments", &eoff) ||
	    query_int64(dst, "SELECT coalesce(max(id), 0) FROM main.samples", &soff))
		goto fail;
	for (i = 0; i < ARRAY_SIZE(json_merge_sql); i++)
		if (json_step(dst, path, json_merge_sql[i], eoff, soff))
			goto fail;
	if (merged_ids(dst, eoff, &ids, &cnt) || add_attested_env(dst, opts, ids, cnt))
		goto fail;
	sqlite3_finalize(dst->ins_jexp);
	sqlite3_finalize(dst->ins_jsmp);
	dst->ins_jexp = dst->ins_jsmp = NULL;
	if (exec(dst->db, dst->path,
		 "DROP TABLE temp.merge_jexp; DROP TABLE temp.merge_jsmp; COMMIT"))
		goto fail;
	*nadded = cnt;
	*nskipped = dst->merge_total - cnt;
	if (new_exp_ids)
		*new_exp_ids = ids;
	else
		free(ids);
	return 0;
fail:
	free(ids);
	store_json_abort(dst);
	return -1;
}

void store_json_abort(struct store *dst)
{
	sqlite3_finalize(dst->ins_jexp);
	sqlite3_finalize(dst->ins_jsmp);
	dst->ins_jexp = dst->ins_jsmp = NULL;
	if (!sqlite3_get_autocommit(dst->db))
		rollback(dst);
	sqlite3_exec(dst->db,
		     "DROP TABLE IF EXISTS temp.merge_jexp;"
		     "DROP TABLE IF EXISTS temp.merge_jsmp",
		     NULL, NULL, NULL);
}

/*
 * Attach another store as "src" of dst's connection, after open_foreign()'s
 * checks: the file itself, read-only (immutable when it has no WAL index,
 * under the checkpoint guard, *guard to close after the detach), so its
 * size costs no memory; or, when it was read into memory (an older schema
 * upgraded, a pending WAL recovered), that image. 0, or -1 after one line.
 */
static int attach_foreign(struct store *dst, const char *path, int *guard)
{
	bool immutable = false;
	unsigned char *image;
	sqlite3_int64 size = 0;
	const char *file;
	sqlite3 *src;
	char *uri, *sql;
	int rc;

	if (open_foreign(path, &src, guard, &immutable))
		return -1;
	file = sqlite3_db_filename(src, "main");
	if (file && *file) {
		sqlite3_close(src);
		uri = immutable_uri(path);
		if (!immutable)
			strcpy(strchr(uri, '?'), "?mode=ro");
		sql = sqlite3_mprintf("ATTACH DATABASE %Q AS src", uri);
		rc = exec(dst->db, dst->path, sql);
		sqlite3_free(sql);
		free(uri);
		return rc;
	}
	image = sqlite3_serialize(src, "main", &size, 0);
	sqlite3_close(src);
	if (!image)
		return error("store '%s': cannot read it into memory", path);
	/* A WAL-mode image must say "rollback journal" to load as an in-memory database. */
	if (size >= 100)
		image[18] = image[19] = 1;
	if (exec(dst->db, dst->path, "ATTACH DATABASE ':memory:' AS src")) {
		sqlite3_free(image);
		return -1;
	}
	rc = sqlite3_deserialize(dst->db, "src", image, size, size,
				 SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE);
	if (rc != SQLITE_OK) {
		sqlite3_exec(dst->db, "DETACH DATABASE src", NULL, NULL, NULL);
		return error("store '%s': cannot load it for merging: %s", path,
			     sqlite3_errstr(rc));
	}
	return 0;
}

int store_import(struct store *dst, const char *src_path, int64_t **new_exp_ids, size_t *nadded,
		 size_t *nskipped)
{
	return store_import_with(dst, src_path, NULL, new_exp_ids, nadded, nskipped);
}

int store_import_with(struct store *dst, const char *src_path, const struct store_import_opts *opts,
		      int64_t **new_exp_ids, size_t *nadded, size_t *nskipped)
{
	sqlite3_stmt *stmt = NULL;
	int64_t eoff, coff, soff, total = 0;
	int64_t *ids = NULL;
	size_t cnt = 0, i;
	bool attached = false;
	int rc, ret = -1, guard = -1;

	if (new_exp_ids)
		*new_exp_ids = NULL;
	*nadded = *nskipped = 0;
	if (writable(dst))
		return -1;
	if (attach_foreign(dst, src_path, &guard))
		goto out;
	attached = true;
	/* What is merged is what is checked: one read of src, from here to the commit. */
	if (verify_schema(dst->db, "src", STORE_VERSION, src_path))
		goto out;
	if (exec(dst->db, dst->path, "BEGIN IMMEDIATE"))
		goto out;
	if (exec(dst->db, dst->path,
		 "CREATE TEMP TABLE merge_exps (id INTEGER PRIMARY KEY);"
		 "INSERT INTO temp.merge_exps SELECT id FROM src.experiments"
		 " WHERE uuid NOT IN (SELECT uuid FROM main.experiments)") ||
	    check_store_values(dst, src_path) ||
	    query_int64(dst, "SELECT count(*) FROM src.experiments", &total) ||
	    query_int64(dst, "SELECT coalesce(max(id), 0) FROM main.experiments", &eoff) ||
	    query_int64(dst, "SELECT coalesce(max(id), 0) FROM main.configs", &coff) ||
	    query_int64(dst, "SELECT coalesce(max(id), 0) FROM main.samples", &soff))
		goto fail;
	for (i = 0; i < ARRAY_SIZE(merge_sql); i++)
		if (merge_step(dst, src_path, merge_sql[i], eoff, coff, soff))
			goto fail;
	if (prepare(dst, "SELECT id + ?1 FROM temp.merge_exps ORDER BY id", &stmt))
		goto fail;
	sqlite3_bind_int64(stmt, 1, eoff);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		ids = xrealloc(ids, (cnt + 1) * sizeof(*ids));
		ids[cnt++] = sqlite3_column_int64(stmt, 0);
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE) {
		import_error(dst, src_path, "cannot merge it");
		goto fail;
	}
	if (add_attested_env(dst, opts, ids, cnt) ||
	    exec(dst->db, dst->path, "DROP TABLE temp.merge_exps; COMMIT"))
		goto fail;
	*nadded = cnt;
	*nskipped = (size_t)total - cnt;
	if (new_exp_ids) {
		*new_exp_ids = ids;
		ids = NULL;
	}
	ret = 0;
	goto out;
fail:
	rollback(dst);
	sqlite3_exec(dst->db, "DROP TABLE IF EXISTS temp.merge_exps", NULL, NULL, NULL);
out:
	free(ids);
	if (attached)
		sqlite3_exec(dst->db, "DETACH DATABASE src", NULL, NULL, NULL);
	if (guard >= 0)
		close(guard); /* after the detach: see the checkpoint guard */
	return ret;
}

int store_open_scratch(struct store **out)
{
	struct store *st = xcalloc(1, sizeof(*st));

	*out = NULL;
	st->guard = -1;
	st->path = xstrdup("(scratch)");
	/* "": SQLite's private temporary file, deleted as it is opened: bounded memory */
	if (sqlite3_open_v2("", &st->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI,
			    NULL) != SQLITE_OK) {
		error("cannot open a scratch store");
		store_close(st);
		return -1;
	}
	setup_connection(st->db);
	if (apply_migrations(st->db, st->path, STORE_VERSION) || prepare_writes(st)) {
		store_close(st);
		return -1;
	}
	*out = st;
	return 0;
}

/* ---- the migrations, for whoever must write a store as an older version did ---- */

const char *store_migration_sql(int version)
{
	return version >= 1 && version <= STORE_VERSION ? migrations[version - 1] : NULL;
}

uint32_t store_application_id(void)
{
	return STORE_APPLICATION_ID;
}

/* ---- campaigns ---- */

int store_campaign_create(struct store *st, const char *backend, const char *plan_json,
			  const char *const *kernels, size_t nboots, int64_t *id, char uuid[37])
{
	sqlite3_stmt *stmt = NULL;
	uuid_t u;
	size_t i;

	uuid_generate_random(u);
	uuid_unparse_lower(u, uuid);
	if (exec(st->db, st->path, "BEGIN IMMEDIATE"))
		return -1;
	if (prepare(st,
		    "INSERT INTO campaigns (uuid, created_ns, state, backend, plan)"
		    " VALUES (?1, ?2, 'running', ?3, ?4)",
		    &stmt))
		goto fail;
	bind_text(stmt, 1, uuid);
	sqlite3_bind_int64(stmt, 2, (sqlite3_int64)realtime_ns());
	bind_text(stmt, 3, backend);
	bind_text(stmt, 4, plan_json);
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		st_error(st, "cannot store the campaign");
		goto fail;
	}
	sqlite3_finalize(stmt);
	stmt = NULL;
	*id = sqlite3_last_insert_rowid(st->db);
	for (i = 0; i < nboots; i++)
		if (store_campaign_boot_add(st, *id, (unsigned)i, kernels[i]))
			goto fail;
	if (exec(st->db, st->path, "COMMIT"))
		goto fail;
	return 0;
fail:
	sqlite3_finalize(stmt);
	rollback(st);
	return -1;
}

int store_campaign_boot_add(struct store *st, int64_t id, unsigned idx, const char *kernel)
{
	sqlite3_stmt *stmt;
	int rc;

	if (prepare(st,
		    "INSERT INTO campaign_boots (campaign_id, idx, kernel, state)"
		    " VALUES (?1, ?2, ?3, 'planned')",
		    &stmt))
		return -1;
	sqlite3_bind_int64(stmt, 1, id);
	sqlite3_bind_int(stmt, 2, (int)idx);
	bind_text(stmt, 3, kernel);
	rc = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	return rc == SQLITE_DONE ? 0 : st_error(st, "cannot store a planned boot");
}

static int campaign_row(struct store *st, sqlite3_stmt *stmt, struct store_campaign *c)
{
	int rc = sqlite3_step(stmt);

	if (rc == SQLITE_DONE)
		return 1;
	if (rc != SQLITE_ROW)
		return st_error(st, "cannot read the campaigns");
	c->id = sqlite3_column_int64(stmt, 0);
	snprintf(c->uuid, sizeof(c->uuid), "%s", col_text(stmt, 1));
	c->created_ns = (uint64_t)sqlite3_column_int64(stmt, 2);
	c->ended_ns = (uint64_t)sqlite3_column_int64(stmt, 3);
	c->state = col_strdup(stmt, 4);
	c->backend = col_strdup(stmt, 5);
	c->plan_json = col_strdup(stmt, 6);
	c->outcome = col_strdup(stmt, 7);
	return 0;
}

int store_campaign_latest(struct store *st, bool running_only, struct store_campaign *c)
{
	sqlite3_stmt *stmt;
	int rc;

	memset(c, 0, sizeof(*c));
	if (prepare(st,
		    running_only ? "SELECT id, uuid, created_ns, ended_ns, state, backend, plan,"
				   " outcome FROM campaigns WHERE state = 'running'"
				   " ORDER BY id DESC LIMIT 1"
				 : "SELECT id, uuid, created_ns, ended_ns, state, backend, plan,"
				   " outcome FROM campaigns ORDER BY id DESC LIMIT 1",
		    &stmt))
		return -1;
	rc = campaign_row(st, stmt, c);
	sqlite3_finalize(stmt);
	return rc;
}

void store_campaign_release(struct store_campaign *c)
{
	free(c->state);
	free(c->backend);
	free(c->plan_json);
	free(c->outcome);
	memset(c, 0, sizeof(*c));
}

int store_campaign_boots(struct store *st, int64_t id, struct store_campaign_boot **out, size_t *n)
{
	struct store_campaign_boot *v = NULL;
	sqlite3_stmt *stmt;
	size_t k = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (prepare(st,
		    "SELECT idx, kernel, state, boot_id, experiment_uuid, reason, at_ns"
		    " FROM campaign_boots WHERE campaign_id = ?1 ORDER BY idx",
		    &stmt))
		return -1;
	sqlite3_bind_int64(stmt, 1, id);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct store_campaign_boot *b;

		v = xrealloc(v, (k + 1) * sizeof(*v));
		b = &v[k++];
		b->idx = (unsigned)sqlite3_column_int(stmt, 0);
		b->kernel = col_strdup(stmt, 1);
		b->state = col_strdup(stmt, 2);
		b->boot_id = col_strdup(stmt, 3);
		b->experiment_uuid = col_strdup(stmt, 4);
		b->reason = col_strdup(stmt, 5);
		b->at_ns = (uint64_t)sqlite3_column_int64(stmt, 6);
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_DONE) {
		store_campaign_boots_free(v, k);
		return st_error(st, "cannot read the campaign's boots");
	}
	*out = v;
	*n = k;
	return 0;
}

void store_campaign_boots_free(struct store_campaign_boot *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].kernel);
		free(v[i].state);
		free(v[i].boot_id);
		free(v[i].experiment_uuid);
		free(v[i].reason);
	}
	free(v);
}

int store_campaign_boot_set(struct store *st, int64_t id, unsigned idx, const char *state,
			    const char *boot_id, const char *exp_uuid, const char *reason)
{
	sqlite3_stmt *stmt;
	int rc;

	if (prepare(st,
		    "UPDATE campaign_boots SET state = ?3, boot_id = coalesce(?4, boot_id),"
		    " experiment_uuid = coalesce(?5, experiment_uuid), reason = ?6, at_ns = ?7"
		    " WHERE campaign_id = ?1 AND idx = ?2",
		    &stmt))
		return -1;
	sqlite3_bind_int64(stmt, 1, id);
	sqlite3_bind_int(stmt, 2, (int)idx);
	bind_text(stmt, 3, state);
	bind_text(stmt, 4, boot_id);
	bind_text(stmt, 5, exp_uuid);
	bind_text(stmt, 6, reason);
	sqlite3_bind_int64(stmt, 7, (sqlite3_int64)realtime_ns());
	rc = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	return rc == SQLITE_DONE ? 0 : st_error(st, "cannot record a campaign boot");
}

int store_campaign_end(struct store *st, int64_t id, const char *state, const char *outcome)
{
	sqlite3_stmt *stmt;
	int rc;

	if (prepare(st,
		    "UPDATE campaigns SET state = ?2, outcome = ?3, ended_ns = ?4 WHERE id = ?1",
		    &stmt))
		return -1;
	sqlite3_bind_int64(stmt, 1, id);
	bind_text(stmt, 2, state);
	bind_text(stmt, 3, outcome);
	sqlite3_bind_int64(stmt, 4, (sqlite3_int64)realtime_ns());
	rc = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	return rc == SQLITE_DONE ? 0 : st_error(st, "cannot end the campaign");
}

int store_experiment_of_owner(struct store *st, pid_t pid, uint64_t since_ns, int64_t *exp_id,
			      char uuid[37])
{
	sqlite3_stmt *stmt;
	int rc;

	if (prepare(st,
		    "SELECT id, uuid FROM experiments WHERE owner_pid = ?1 AND started_ns >= ?2"
		    " ORDER BY id DESC LIMIT 1",
		    &stmt))
		return -1;
	sqlite3_bind_int64(stmt, 1, (sqlite3_int64)pid);
	sqlite3_bind_int64(stmt, 2, (sqlite3_int64)since_ns);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*exp_id = sqlite3_column_int64(stmt, 0);
		snprintf(uuid, 37, "%s", col_text(stmt, 1));
	}
	sqlite3_finalize(stmt);
	if (rc == SQLITE_ROW)
		return 0;
	return rc == SQLITE_DONE ? 1 : st_error(st, "cannot find the experiment");
}
