/*
 * t-import.c: the door (engine/import.c) on crafted inputs: a file's type
 * from its structure, and the streamed export parser's refusals of what
 * SQLite's JSON functions would read ambiguously (duplicate keys, NUL,
 * integers past 64 bits, non-finite numbers, nesting, long tokens, UUIDs
 * that are not), each with its reason and nothing merged; what a document
 * may do (a byte-order mark, members in any order, samples before configs)
 * merges; keys that only the importing machine attests become claims.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/import.h"
#include "store/store.h"
#include "render/render.h"
#include "util/util.h"

static char tmpdir[256];

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "%s/t-import.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	int rc = system(cmd);

	(void)state;
	free(cmd);
	return rc ? -1 : 0;
}

#define UUID1 "8f9149f5-c154-485d-83bb-594e8fb54a5c"

/* One experiment as export writes it, with its parts replaceable. */
static char *doc_with(const char *uuid, const char *label, const char *started,
		      const char *extra_env, const char *samples)
{
	return xasprintf(
		"{\"format\":\"wakebench-export\",\"version\":2,\"schema\":4,\"experiments\":[{"
		"\"uuid\":\"%s\",\"kind\":\"run\",\"workload\":\"pipe\",\"profile\":\"stress-ng-0."
		"15\","
		"\"params\":{\"instances\":4},\"label\":%s,\"host\":\"host\",\"kernel\":\"6.6\","
		"\"started_ns\":%s,\"status\":\"complete\","
		"\"configs\":[{\"name\":\"default\",\"features\":\"DELAY_DEQUEUE\"}],"
		"\"env\":{\"start\":[{\"key\":\"kernel.release\",\"value\":\"6.6\",\"impact\":"
		"\"strong\"}%s],\"end\":[]},"
		"\"metrics\":[{\"name\":\"ctxsw_per_op\",\"better\":\"lower\",\"evidence\":true}],"
		"\"samples\":[%s]}]}",
		uuid, label, started, extra_env, samples);
}

#define SAMPLE(i)                                                                                  \
	"{\"index\":" #i                                                                           \
	",\"config\":\"default\",\"warmup\":false,\"status\":\"ok\",\"reason\":null,"              \
	"\"ops\":99,\"real_s\":0.1,\"ops_per_s\":990.5,\"metrics\":{\"ctxsw_per_op\":2.0}}"

static char *doc_ok(void)
{
	return doc_with(UUID1, "\"base\"", "1796313323512824993", "", SAMPLE(0) "," SAMPLE(1));
}

/* Import text as a file into a fresh store: the result, stderr in *err (malloc'd). */
static int import_text(const char *text, size_t len, struct store **out, char **err, size_t *added)
{
	char *src = xasprintf("%s/in", tmpdir), *errf = xasprintf("%s/err", tmpdir),
	     *db = xasprintf("%s/dst.db", tmpdir), *side;
	struct import_result r;
	int fd, saved, rc;
	size_t n;

	fd = open(src, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write_full(fd, text, len), (ssize_t)len);
	close(fd);
	unlink(db);
	side = xasprintf("%s-wal", db);
	unlink(side);
	free(side);
	assert_int_equal(store_open(db, STORE_CREATE, out), 0);
	fflush(stderr);
	saved = dup(2);
	fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
	rc = import_file(*out, src, &r);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	assert_int_equal(read_file(errf, err, &n), 0);
	*added = r.added;
	free(r.ids);
	free(src);
	free(errf);
	free(db);
	return rc;
}

static size_t count_experiments(struct store *st)
{
	struct store_experiment *exps;
	size_t n;

	assert_int_equal(store_list_experiments(st, NULL, &exps, &n), 0);
	store_experiments_free(exps, n);
	return n;
}

/* The document is refused with a reason containing want, and nothing is merged. */
static void refused(const char *doc, const char *want)
{
	struct store *st;
	size_t added = 9;
	char *err;

	assert_int_equal(import_text(doc, strlen(doc), &st, &err, &added), -1);
	if (!strstr(err, want))
		fail_msg("error '%s', expected '%s'", err, want);
	assert_int_equal(added, 0);
	assert_int_equal(count_experiments(st), 0);
	store_close(st);
	free(err);
}

static void merged(const char *doc, size_t len, size_t want)
{
	struct store *st;
	size_t added = 0;
	char *err;

	if (import_text(doc, len, &st, &err, &added))
		fail_msg("refused: %s", err);
	assert_int_equal(added, want);
	assert_int_equal(count_experiments(st), want);
	store_close(st);
	free(err);
}

static void test_valid(void **state)
{
	char *doc = doc_ok(), *bom = xasprintf("\xef\xbb\xbf  \n%s", doc);

	(void)state;
	merged(doc, strlen(doc), 1);
	/* a byte-order mark and white space before it */
	merged(bom, strlen(bom), 1);
	free(bom);
	free(doc);
	/* samples before the configs they name, and unknown members, merge too */
	doc = xasprintf("{\"format\":\"wakebench-export\",\"version\":2,\"future\":[{\"a\":[1]}],"
			"\"experiments\":[{\"samples\":[%s],\"uuid\":\"%s\",\"workload\":\"pipe\","
			"\"status\":\"complete\",\"configs\":[{\"name\":\"default\"}]}]}",
			SAMPLE(0), UUID1);
	merged(doc, strlen(doc), 1);
	free(doc);
}

static void test_structure(void **state)
{
	char *doc = doc_ok(), *obj, *p;

	(void)state;
	/* experiments as an object: refused whole (it once merged its members) */
	p = strstr(doc, "\"experiments\":[") + 15;
	doc[strlen(doc) - 2] = '\0';
	p[-1] = '\0';
	obj = xasprintf("%s{\"0\":%s}}", doc, p);
	refused(obj, "'experiments' is an object, expected an array");
	free(obj);
	free(doc);
	/* format after experiments (jq -S sorts keys so) is an export; without it, not */
	{
		static const char sorted[] =
			"{\"experiments\":[],\"format\":\"wakebench-export\",\"version\":2}";

		merged(sorted, sizeof(sorted) - 1, 0);
	}
	refused("{\"experiments\":[],\"version\":2}",
		"neither a wakebench store nor a wakebench export");
	refused("{\"format\":\"wakebench-export\",\"version\":3,\"experiments\":[]}",
		"neither a wakebench store nor a wakebench export");
	refused("{\"format\":\"wakebench-export\",\"version\":2,\"experiments\":[7]}",
		"experiment #0 is integer, expected an object");
	/* one experiment twice in one document */
	doc = doc_ok();
	p = strstr(doc, "\"experiments\":[") + 15;
	{
		char *end = doc + strlen(doc) - 2, *twice;

		*end = '\0';
		twice = xasprintf("%s,%s]}", doc, p);
		refused(twice, "its uuid " UUID1 " comes twice in it");
		free(twice);
	}
	free(doc);
	doc = doc_with(UUID1, "\"x\"", "1", "", SAMPLE(0));
	p = strstr(doc, "\"" UUID1 "\"");
	memcpy(p, "5                                     ", 38);
	refused(doc, "its uuid is integer, expected a UUID");
	free(doc);
	doc = doc_with(UUID1, "\"x\"", "1", "", "[1]");
	refused(doc, "sample 0 is an array, expected an object");
	free(doc);
	doc = doc_ok();
	doc[strlen(doc) - 1] = ',';
	refused(doc, "not valid JSON");
	free(doc);
	refused("{\"format\":\"wakebench-export\",\"version\":2,\"experiments\":[]} {}",
		"not valid JSON");
}

static void test_ambiguous(void **state)
{
	char *doc;

	(void)state;
	doc = doc_with(UUID1, "\"a\",\"label\":\"b\"", "1", "", SAMPLE(0));
	refused(doc, "the key \"label\" comes twice in one object");
	free(doc);
	doc = doc_with(UUID1, "\"x\"", "1", "",
		       "{\"index\":0,\"index\":1,\"config\":\"default\",\"warmup\":false,"
		       "\"status\":\"ok\"}");
	refused(doc, "the key \"index\" comes twice");
	free(doc);
	doc = doc_with(UUID1, "\"base\\u0000forged\"", "1", "", SAMPLE(0));
	refused(doc, "NUL character");
	free(doc);
	doc = doc_with(UUID1, "\"x\"", "9223372036854775808", "", SAMPLE(0));
	refused(doc, "the number 9223372036854775808 is out of range");
	free(doc);
	doc = doc_with(UUID1, "\"x\"", "9223372036854775807", "", SAMPLE(0));
	merged(doc, strlen(doc), 1);
	free(doc);
	doc = doc_with(UUID1, "\"x\"", "1e400", "", SAMPLE(0));
	refused(doc, "not a finite double");
	free(doc);
}

static void test_uuid(void **state)
{
	static const char *const bad[] = {
		"------------------------------------", "000000000000000000000000000000000000",
		"00000000-0000-0000-0000-000000000000", "8F9149F5-C154-485D-83BB-594E8FB54A5C",
		"8f9149f5-c154-485d-83bb-594e8fb54a5",	"8f9149f5c154-485d-83bb-594e8fb54a5c0",
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char *doc = doc_with(bad[i], "\"x\"", "1", "", SAMPLE(0));

		refused(doc, "expected a UUID");
		free(doc);
	}
	assert_true(store_uuid_valid(UUID1));
}

static void test_bounds(void **state)
{
	struct sbuf b = { 0 };
	char *doc;
	int i;

	(void)state;
	/* nesting */
	sbuf_puts(&b, "{\"format\":\"wakebench-export\",\"version\":2,\"x\":");
	for (i = 0; i < 40; i++)
		sbuf_puts(&b, "[");
	for (i = 0; i < 40; i++)
		sbuf_puts(&b, "]");
	sbuf_puts(&b, ",\"experiments\":[]}");
	refused(b.buf, "nested more than 32 deep");
	sbuf_release(&b);
	/* a token that never ends: refused at its limit, not read into memory */
	sbuf_puts(&b, "{\"format\":\"wakebench-export\",\"version\":2,\"x\":\"");
	for (i = 0; i < (3 << 20) / 64; i++)
		sbuf_puts(&b, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
	refused(b.buf, "without a JSON token ending");
	sbuf_release(&b);
	/* a long string that ends is refused by its size */
	doc = xasprintf("{\"format\":\"wakebench-export\",\"version\":2,\"x\":\"%*s\","
			"\"experiments\":[]}",
			(1 << 20) + 10, "");
	refused(doc, "a string of 1048586 bytes");
	free(doc);
}

/* vm.* and lava.* from a file are claims: kept, renamed claimed.KEY. */
static void test_claims(void **state)
{
	char *doc = doc_with(UUID1, "\"x\"", "1",
			     ",{\"key\":\"vm.accel\",\"value\":\"kvm\",\"impact\":\"strong\"},"
			     "{\"key\":\"lava.job_id\",\"value\":\"7\",\"impact\":\"identity\"}",
			     SAMPLE(0));
	struct store_experiment *exps;
	struct store *st;
	struct env env = { 0 };
	size_t added, n;
	char *err;

	(void)state;
	assert_int_equal(import_text(doc, strlen(doc), &st, &err, &added), 0);
	assert_int_equal(store_list_experiments(st, NULL, &exps, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(store_load_env(st, exps[0].id, "start", &env), 0);
	assert_null(env_get(&env, "vm.accel"));
	assert_string_equal(env_get(&env, "claimed.vm.accel"), "kvm");
	assert_null(env_get(&env, "lava.job_id"));
	assert_string_equal(env_get(&env, "claimed.lava.job_id"), "7");
	assert_string_equal(env_get(&env, "kernel.release"), "6.6");
	env_release(&env);
	store_experiments_free(exps, n);
	store_close(st);
	free(err);
	free(doc);
}

/* The type is the structure's, not a substring's. */
static void test_type(void **state)
{
	(void)state;
	refused("", "it is empty");
	{
		static const char bin[] = "\x01\x02\x00 binary";
		struct store *st;
		size_t added;
		char *err;

		assert_int_equal(import_text(bin, sizeof(bin), &st, &err, &added), -1);
		assert_non_null(strstr(err, "neither a wakebench store, an export"));
		store_close(st);
		free(err);
	}
	/* an HTML file that is not a report wakebench wrote is read as a log, with no frames */
	refused("<!DOCTYPE html>\n<pre id=\"wakebench-data\">", "no wakebench results frame");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),	  cmocka_unit_test(test_structure),
		cmocka_unit_test(test_ambiguous), cmocka_unit_test(test_uuid),
		cmocka_unit_test(test_bounds),	  cmocka_unit_test(test_claims),
		cmocka_unit_test(test_type),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
