/*
 * store-legacy.h: stores as older versions of wakebench wrote them, for the
 * tests of the upgrades (t-store, t-metrics) and the fuzz seeds (mkseed).
 * Test support, not product: the migrations come from the store itself
 * (store_migration_sql()), the data is one complete experiment written with
 * the columns of version 1, which every later version keeps.
 */
#ifndef WAKEBENCH_TEST_STORE_LEGACY_H
#define WAKEBENCH_TEST_STORE_LEGACY_H

#include <stdio.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "store/store.h"
#include "util/util.h"

/*
 * Create a store at schema version `version` (1 .. store_schema_version())
 * holding one complete experiment written the way that version stored it.
 */
static inline int store_create_legacy(const char *path, int version)
{
	static const char *const data =
		"INSERT INTO experiments (id, uuid, kind, workload, profile, params, cmdline,"
		" version, label, host, kernel, started_ns, ended_ns, status) VALUES (1,"
		" '00000000-0000-4000-8000-00000000000' || ?1, 'run', 'pipe', 'stress-ng-0.15',"
		" '{\"instances\":4}', 'wakebench run pipe', '0.0.1', 'legacy', 'oldhost',"
		" '6.6.78', 1700000000000000000, 1700000100000000000, 'complete');"
		"INSERT INTO configs (id, experiment_id, name, features) VALUES (1, 1, 'default',"
		" 'DELAY_DEQUEUE');"
		"INSERT INTO samples (id, experiment_id, config_id, idx, warmup, status, reason,"
		" start_realtime_ns, duration_ns, wall_ns, instances, ops, real_s, usr_s, sys_s,"
		" ops_per_s, ops_per_cpu_s) VALUES"
		" (1, 1, 1, 0, 0, 'ok', NULL, 1700000001000000000, 5000000000, 5000100000, 4,"
		"  1000000, 5.0, 1.0, 9.0, 200000.0, 100000.0),"
		" (2, 1, 1, 1, 0, 'failed', 'instance 2 died', 1700000006000000000, 5000000000,"
		"  100000, 4, 0, 0, 0, 0, 0, 0);"
		"INSERT INTO sample_metrics (sample_id, pos, name, value, available, why, better,"
		" flags) VALUES (1, 0, 'ctxsw_per_op', 2.5, 1, NULL, -1, 1),"
		" (1, 1, 'migrations_per_kop', NULL, 0, 'no /proc/pid/sched', -1, 1);"
		"INSERT INTO env (experiment_id, phase, key, value, impact) VALUES"
		" (1, 'start', 'kernel.release', '6.6.78', 0),"
		" (1, 'end', 'kernel.release', '6.6.78', 0);";
	/* Version 4 and later also list the experiment's metrics. */
	static const char *const data_v4 =
		"INSERT INTO experiment_metrics (experiment_id, name, pos, better, flags) VALUES"
		" (1, 'ctxsw_per_op', 0, -1, 1), (1, 'migrations_per_kop', 1, -1, 1);";
	const char *tail = data;
	sqlite3 *db = NULL;
	sqlite3_stmt *stmt;
	struct stat sb;
	char sql[96];
	int v, rc;

	if (version < 1 || version > store_schema_version())
		return error("no store schema version %d", version);
	if (!stat(path, &sb))
		return error("'%s' exists already", path);
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
		    SQLITE_OK ||
	    sqlite3_exec(db, "PRAGMA journal_mode = WAL; BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	for (v = 1; v <= version; v++)
		if (sqlite3_exec(db, store_migration_sql(v), NULL, NULL, NULL) != SQLITE_OK)
			goto fail;
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d; PRAGMA application_id = %d", version,
		 (int)store_application_id());
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	/* Each statement of `data` in turn, the version bound as the UUID's last digit. */
	while (tail && *tail) {
		if (sqlite3_prepare_v2(db, tail, -1, &stmt, &tail) != SQLITE_OK)
			goto fail;
		if (!stmt)
			break;
		if (sqlite3_bind_parameter_count(stmt) >= 1)
			sqlite3_bind_int(stmt, 1, version);
		rc = sqlite3_step(stmt);
		sqlite3_finalize(stmt);
		if (rc != SQLITE_DONE)
			goto fail;
	}
	if ((version >= 4 && sqlite3_exec(db, data_v4, NULL, NULL, NULL) != SQLITE_OK) ||
	    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_close(db);
	return 0;
fail:
	error("cannot create a legacy store '%s': %s", path,
	      db ? sqlite3_errmsg(db) : "out of memory");
	sqlite3_close(db);
	return -1;
}

#endif
