/*
 * t-trace-format.c: tracefs format files as the kernel prints them (6.18,
 * copied from a live system, with sched_migrate_task's __data_loc comm) and
 * an older layout (comm as char[16], so every later offset moves): fields,
 * offsets, signedness, the prev_state flags of the print fmt; records built
 * from those offsets decode to the right values; the analysis turns a
 * known event sequence into the right latencies, shares and counts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include <cmocka.h>

#include "sys/trace.h"
#include "util/util.h"

static void tracefs_dir(const char *which, char *buf, size_t len)
{
	const char *src = getenv("WAKEBENCH_SRC");

	snprintf(buf, len, "%s/tests/fixtures/tracefs/%s", src ? src : ".", which);
}

static void test_switch_format(void **state)
{
	char dir[4096], why[256];
	struct tp_format f;
	const struct tp_field *fd;

	(void)state;
	tracefs_dir("6.18", dir, sizeof(dir));
	assert_int_equal(trace_event_load(dir, "sched", "sched_switch", &f, why, sizeof(why)), 0);
	assert_string_equal(f.name, "sched_switch");
	assert_int_equal(f.id, 372);
	assert_int_equal(f.nfields, 11);
	fd = tp_field_find(&f, "prev_comm");
	assert_non_null(fd);
	assert_string_equal(fd->type, "char[16]");
	assert_int_equal(fd->offset, 8);
	assert_int_equal(fd->size, 16);
	fd = tp_field_find(&f, "prev_pid");
	assert_string_equal(fd->type, "pid_t");
	assert_int_equal(fd->offset, 24);
	assert_true(fd->is_signed);
	fd = tp_field_find(&f, "prev_state");
	assert_string_equal(fd->type, "long");
	assert_int_equal(fd->offset, 32);
	assert_int_equal(fd->size, 8);
	fd = tp_field_find(&f, "next_pid");
	assert_int_equal(fd->offset, 56);
	fd = tp_field_find(&f, "common_type");
	assert_string_equal(fd->type, "unsigned short");
	assert_false(fd->is_signed);
	/* S D T t X Z P I */
	assert_int_equal(f.print_flags_mask, 0xff);
	assert_null(tp_field_find(&f, "prev"));
}

static void test_migrate_data_loc_and_older(void **state)
{
	char dir[4096], why[256];
	struct tp_format f;
	const struct tp_field *fd;

	(void)state;
	tracefs_dir("6.18", dir, sizeof(dir));
	assert_int_equal(trace_event_load(dir, "sched", "sched_migrate_task", &f, why, sizeof(why)),
			 0);
	fd = tp_field_find(&f, "comm");
	assert_non_null(fd);
	assert_true(fd->data_loc);
	assert_string_equal(fd->type, "__data_loc char[]");
	assert_int_equal(fd->offset, 8);
	assert_int_equal(fd->size, 4);
	assert_int_equal(tp_field_find(&f, "pid")->offset, 12);
	assert_int_equal(tp_field_find(&f, "dest_cpu")->offset, 24);
	assert_int_equal(f.print_flags_mask, 0);

	tracefs_dir("older", dir, sizeof(dir));
	assert_int_equal(trace_event_load(dir, "sched", "sched_migrate_task", &f, why, sizeof(why)),
			 0);
	assert_int_equal(f.id, 313);
	fd = tp_field_find(&f, "comm");
	assert_false(fd->data_loc);
	assert_string_equal(fd->type, "char[16]");
	assert_int_equal(tp_field_find(&f, "pid")->offset, 24);
	assert_int_equal(tp_field_find(&f, "dest_cpu")->offset, 36);
}

static void put(unsigned char *raw, const struct tp_field *fd, int64_t v)
{
	memcpy(raw + fd->offset, &v, fd->size); /* little-endian test host */
}

static void put_type(unsigned char *raw, const struct tp_format *f)
{
	uint16_t id = (uint16_t)f->id;

	memcpy(raw, &id, 2);
}

/* Build records from the parsed offsets of each layout and decode them. */
static void decode_layout(const char *which)
{
	char dir[4096], why[256], comm[32];
	struct trace_decoder d;
	unsigned char raw[128];
	struct tev ev;
	const struct tp_field *cf;

	tracefs_dir(which, dir, sizeof(dir));
	if (trace_decoder_init(&d, dir, why, sizeof(why)))
		fail_msg("%s: %s", which, why);
	assert_int_equal(d.blocking_mask, 0xff);

	memset(raw, 0, sizeof(raw));
	put_type(raw, &d.fmt[TEV_SWITCH]);
	put(raw, d.switch_prev_pid, 4242);
	put(raw, d.switch_next_pid, 77);
	put(raw, d.switch_prev_state, 0x100);
	assert_int_equal(trace_decode(&d, raw, d.switch_next_pid->offset + 8, &ev), 0);
	assert_int_equal(ev.kind, TEV_SWITCH);
	assert_int_equal(ev.pid, 4242);
	assert_int_equal(ev.pid2, 77);
	assert_int_equal(ev.arg, 0x100);
	/* truncated record */
	assert_int_equal(trace_decode(&d, raw, d.switch_prev_pid->offset + 2, &ev), -1);

	memset(raw, 0, sizeof(raw));
	put_type(raw, &d.fmt[TEV_WAKING]);
	put(raw, d.waking_pid, 31337);
	put(raw, d.waking_cpu, 3);
	assert_int_equal(trace_decode(&d, raw, 40, &ev), 0);
	assert_int_equal(ev.kind, TEV_WAKING);
	assert_int_equal(ev.pid, 31337);
	assert_int_equal(ev.arg, 3);

	memset(raw, 0, sizeof(raw));
	put_type(raw, &d.fmt[TEV_MIGRATE]);
	put(raw, d.migrate_pid, 555);
	put(raw, d.migrate_dest, 1);
	cf = tp_field_find(&d.fmt[TEV_MIGRATE], "comm");
	if (cf->data_loc) {
		uint32_t loc = (5u << 16) | 40u;

		memcpy(raw + cf->offset, &loc, 4);
		memcpy(raw + 40, "pong", 5);
	} else {
		memcpy(raw + cf->offset, "ping", 5);
	}
	assert_int_equal(trace_decode(&d, raw, 48, &ev), 0);
	assert_int_equal(ev.kind, TEV_MIGRATE);
	assert_int_equal(ev.pid, 555);
	assert_int_equal(ev.pid2, 1);
	assert_int_equal(tp_field_str(cf, raw, 48, comm, sizeof(comm)), 0);
	assert_string_equal(comm, cf->data_loc ? "pong" : "ping");
	/* a __data_loc pointing past the record is refused */
	if (cf->data_loc)
		assert_int_equal(tp_field_str(cf, raw, 42, comm, sizeof(comm)), -1);

	/* another event's id is not ours */
	raw[0] = 0xff;
	raw[1] = 0xff;
	assert_int_equal(trace_decode(&d, raw, 48, &ev), -1);
}

static void test_decode_618(void **state)
{
	(void)state;
	decode_layout("6.18");
}

static void test_decode_older(void **state)
{
	(void)state;
	decode_layout("older");
}

static void test_bad_format(void **state)
{
	struct tp_format f;
	char why[256];

	(void)state;
	assert_int_equal(tp_format_parse("hello\n", &f, why, sizeof(why)), -1);
	assert_int_equal(tp_format_parse("name: x\nID: 1\nformat:\n\tfield:int;\toffset:x;\n", &f,
					 why, sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "cannot parse"));
}

static struct tev E(uint64_t t, int cpu, int kind, int pid, int pid2, int64_t arg) {
	struct tev ev = {
		.time_ns = t, .cpu = cpu, .kind = kind, .pid = pid, .pid2 = pid2, .arg = arg
	};

	return ev;
}

static void
test_analysis(void **state)
{
	static const pid_t tids[] = { 200, 100 };
	struct trace_analysis a;
	struct hist h;
	size_t i;
	const struct tev evs[] = {
		/* 100 woken (previously on CPU 0), runs on CPU 0 2 us later */
		E(1000, 1, TEV_WAKING, 100, 0, 0),
		E(1500, 1, TEV_WAKING, 300, 0, 0), /* not ours */
		E(3000, 0, TEV_SWITCH, 0, 100, 0),
		/* 100 blocks (S) */
		E(5000, 0, TEV_SWITCH, 100, 0, 1),
		/* woken again, moved to CPU 1, runs there 4 us later */
		E(6000, 0, TEV_WAKING, 100, 0, 0),
		E(6100, 0, TEV_MIGRATE, 100, 1, 0),
		E(10000, 1, TEV_SWITCH, 0, 100, 0),
		/* preempted by 200 (runnable, kernel's preempt bit set) */
		E(11000, 1, TEV_SWITCH, 100, 200, 0x100),
		/* a wakeup of the running task 200 times nothing */
		E(11500, 0, TEV_WAKING, 200, 0, 1),
		/* 200 blocks in D */
		E(12000, 1, TEV_SWITCH, 200, 100, 2),
	};

	(void)state;
	trace_analysis_init(&a, tids, 2, 0xff);
	for (i = 0; i < ARRAY_SIZE(evs); i++)
		trace_analysis_event(&a, &evs[i]);
	assert_int_equal(a.wakings, 3);
	assert_int_equal(a.wakeups_run, 2);
	assert_int_equal(a.wake_prev_cpu, 1);
	assert_int_equal(a.switches_out, 3);
	assert_int_equal(a.preempted, 1);
	assert_int_equal(a.migrations, 1);
	trace_analysis_latency(&a, &h);
	assert_int_equal(h.count, 2);
	assert_int_equal(h.min, 2000);
	assert_int_equal(h.max, 4000);
	assert_true(fabs((double)hist_percentile(&h, 0.5) - 2000) <= 2000 * HIST_REL_ERROR);
	assert_int_equal(hist_percentile(&h, 1.0), 4000);
	assert_non_null(a.lat[0]);
	assert_non_null(a.lat[1]);
	trace_analysis_release(&a);
}

/*
 * Records lost by the kernel may hide a switch-in: a wakeup pending from
 * before the loss must not be matched with a switch-in long after it (a
 * latency that never happened).
 */
static void test_lost_records_end_pending_wakeups(void **state)
{
	static const pid_t tids[] = { 100 };
	struct trace_analysis a;
	struct hist h;
	size_t i;
	const struct tev evs[] = {
		E(1000, 1, TEV_WAKING, 100, 0, 0),
		/* CPU 0 lost records here: 100's switch-in among them */
		E(2000, 0, TEV_LOST, 0, 0, 5),
		/* 100 runs, blocks, and is woken much later: 1 us wait */
		E(900000, 0, TEV_SWITCH, 100, 0, 1),
		E(1000000, 1, TEV_WAKING, 100, 0, 0),
		E(1001000, 0, TEV_SWITCH, 0, 100, 0),
	};

	(void)state;
	trace_analysis_init(&a, tids, 1, 0xff);
	for (i = 0; i < ARRAY_SIZE(evs); i++)
		trace_analysis_event(&a, &evs[i]);
	assert_int_equal(a.wakings, 2);
	assert_int_equal(a.wakeups_run, 1);
	trace_analysis_latency(&a, &h);
	assert_int_equal(h.count, 1);
	assert_int_equal(h.max, 1000);
	trace_analysis_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switch_format),
		cmocka_unit_test(test_migrate_data_loc_and_older),
		cmocka_unit_test(test_decode_618),
		cmocka_unit_test(test_decode_older),
		cmocka_unit_test(test_bad_format),
		cmocka_unit_test(test_analysis),
		cmocka_unit_test(test_lost_records_end_pending_wakeups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
