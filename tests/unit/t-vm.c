/*
 * t-vm.c: the host side of one `vm` boot without booting: the qemu argument
 * vector (no reboot, no display, console and channel on separate files,
 * the accelerator's CPU model, commas escaped in paths), the console tail
 * and panic finder, and the kernel image check. The arm64 guest's row on
 * any host: virt, cortex-a76, the PL011 console and the PCI UART channel;
 * images told apart by their headers (Image, gzip'd Image, bzImage, EFI
 * zboot); a foreign guest's wakebench, busybox and sysroot found.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#include "runner/vm.h"
#include "sys/vmhost.h"
#include "util/util.h"

static int argv_has(char **v, const char *a, const char *b)
{
	size_t i;

	for (i = 0; v[i]; i++)
		if (!strcmp(v[i], a) && (!b || (v[i + 1] && !strcmp(v[i + 1], b))))
			return 1;
	return 0;
}

static const char *argv_after(char **v, const char *a)
{
	size_t i;

	for (i = 0; v[i]; i++)
		if (!strcmp(v[i], a))
			return v[i + 1];
	return NULL;
}

static void test_qemu_argv(void **state)
{
	const struct vmhost_arch *arch = vmhost_arch();
	struct vm_boot b = {
		.arch = arch,
		.qemu = "/usr/bin/qemu",
		.kvm = 0,
		.cpus = 2,
		.memory_bytes = 1ull << 30,
		.kernel = "/k/vmlinuz",
		.initrd = "/t/initrd.cpio",
		.append = "quiet",
		.console_path = "/t/con,sole.log",
		.chan_path = "/t/chan.bin",
	};
	char **v;
	const char *append;

	(void)state;
	if (!arch) {
		wb_skip("vm has no guest support for this machine's architecture");
		return;
	}
	v = vm_qemu_argv(&b);
	assert_string_equal(v[0], "/usr/bin/qemu");
	assert_true(argv_has(v, "-no-reboot", NULL));
	assert_true(argv_has(v, "-nodefaults", NULL));
	assert_true(argv_has(v, "-display", "none"));
	assert_true(argv_has(v, "-monitor", "none"));
	assert_true(argv_has(v, "-accel", "tcg"));
	assert_true(argv_has(v, "-cpu", arch->tcg_cpu));
	assert_true(argv_has(v, "-smp", "2"));
	assert_true(argv_has(v, "-m", "1024M"));
	assert_true(argv_has(v, "-kernel", "/k/vmlinuz"));
	assert_true(argv_has(v, "-initrd", "/t/initrd.cpio"));
	append = argv_after(v, "-append");
	assert_non_null(append);
	assert_non_null(strstr(append, "console="));
	assert_non_null(strstr(append, arch->console));
	assert_non_null(strstr(append, "panic=-1"));
	assert_non_null(strstr(append, "oops=panic"));
	assert_non_null(strstr(append, " quiet"));
	/* The console and the channel are separate files; commas doubled for qemu. */
	assert_true(argv_has(v, "-chardev", "file,id=wbconsole,path=/t/con,,sole.log"));
	assert_true(argv_has(v, "-chardev", "file,id=wbchan,path=/t/chan.bin"));
	assert_true(argv_has(v, "-serial", "chardev:wbconsole"));
	if (arch->chan_pci_serial)
		assert_true(argv_has(v, "-device", "pci-serial,chardev=wbchan"));
	else
		assert_true(argv_has(v, "-serial", "chardev:wbchan"));
	vm_argv_free(v);

	b.kvm = 1;
	b.append = NULL;
	v = vm_qemu_argv(&b);
	assert_true(argv_has(v, "-accel", "kvm"));
	assert_true(argv_has(v, "-cpu", "host"));
	vm_argv_free(v);
}

static char *write_tmp(const char *text)
{
	char *path = xstrdup("/tmp/t-vm.XXXXXX");
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write_full(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void test_console(void **state)
{
	char *path = write_tmp("[    1.0] one\r\n[    2.0] two\n[    3.0] BUG: kernel NULL pointer "
			       "dereference, address: 51\n[    3.1] Kernel panic - not syncing: "
			       "Fatal exception\nlast \001line\n");
	char buf[256], *out;
	size_t len;
	FILE *f;

	(void)state;
	assert_int_equal(vm_console_panic(path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "BUG: kernel NULL pointer dereference, address: 51");
	f = open_memstream(&out, &len);
	vm_console_tail(path, 2, "| ", f);
	fclose(f);
	assert_string_equal(out, "| [    3.1] Kernel panic - not syncing: Fatal exception\n"
				 "| last \\x01line\n");
	free(out);
	unlink(path);
	free(path);

	path = write_tmp("[    1.0] all fine\nwakebench-guest: init up\n");
	assert_int_equal(vm_console_panic(path, buf, sizeof(buf)), -1);
	f = open_memstream(&out, &len);
	vm_console_tail(path, 25, "", f);
	fclose(f);
	assert_string_equal(out, "[    1.0] all fine\nwakebench-guest: init up\n");
	free(out);
	unlink(path);
	free(path);

	f = open_memstream(&out, &len);
	vm_console_tail("/nonexistent/console.log", 5, "| ", f);
	fclose(f);
	assert_string_equal(out, "| (the console is empty)\n");
	free(out);
}

static void test_check_kernel(void **state)
{
	char dir[] = "/tmp/t-vm-k.XXXXXX", why[256], *bz, *arm, *junk;
	unsigned char img[4096];
	const struct vmhost_arch *arch = vmhost_arch();
	FILE *f;

	(void)state;
	if (!arch) {
		wb_skip("vm has no guest support for this machine's architecture");
		return;
	}
	assert_non_null(mkdtemp(dir));
	bz = xasprintf("%s/bz", dir);
	arm = xasprintf("%s/arm", dir);
	junk = xasprintf("%s/junk", dir);
	memset(img, 0, sizeof(img));
	img[0x1fe] = 0x55;
	img[0x1ff] = 0xaa;
	memcpy(img + 0x202, "HdrS", 4);
	f = fopen(bz, "w");
	fwrite(img, 1, sizeof(img), f);
	fclose(f);
	memset(img, 0, sizeof(img));
	memcpy(img + 0x38, "ARM\x64", 4);
	f = fopen(arm, "w");
	fwrite(img, 1, sizeof(img), f);
	fclose(f);
	f = fopen(junk, "w");
	fputs("#!/bin/sh\necho not a kernel\n", f);
	fclose(f);

	assert_int_equal(vmhost_check_kernel(junk, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a kernel image"));
	assert_int_equal(vmhost_check_kernel("/nonexistent", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "No such file"));
	if (!strcmp(arch->name, "x86-64")) {
		assert_int_equal(vmhost_check_kernel(bz, why, sizeof(why)), 0);
		assert_int_equal(vmhost_check_kernel(arm, why, sizeof(why)), -1);
		assert_non_null(strstr(why, "an arm64 kernel image, this machine is x86-64"));
	} else {
		assert_int_equal(vmhost_check_kernel(arm, why, sizeof(why)), 0);
		assert_int_equal(vmhost_check_kernel(bz, why, sizeof(why)), -1);
	}
	unlink(bz);
	unlink(arm);
	unlink(junk);
	rmdir(dir);
	free(bz);
	free(arm);
	free(junk);
}

static void test_qemu_argv_arm64(void **state)
{
	const struct vmhost_arch *arch = vmhost_arch_named("arm64");
	struct vm_boot b = {
		.arch = arch,
		.qemu = "qemu-system-aarch64",
		.cpus = 1,
		.memory_bytes = 1ull << 30,
		.kernel = "/k/vmlinuz",
		.initrd = "/t/initrd.cpio",
		.console_path = "/t/console.log",
		.chan_path = "/t/chan.bin",
	};
	char **v;
	size_t i, serials = 0;

	(void)state;
	assert_non_null(arch);
	assert_ptr_equal(vmhost_arch_named("aarch64"), arch);
	assert_ptr_equal(vmhost_arch_named("x86_64"), vmhost_arch_named("x86-64"));
	assert_ptr_equal(vmhost_arch_named("amd64"), vmhost_arch_named("x86-64"));
	assert_null(vmhost_arch_named("riscv64"));
	v = vm_qemu_argv(&b);
	assert_true(argv_has(v, "-machine", "virt"));
	assert_true(argv_has(v, "-accel", "tcg"));
	/* The Pi 5's core; it has the 16 KiB granule the arm64-16k kernel needs. */
	assert_true(argv_has(v, "-cpu", "cortex-a76"));
	assert_non_null(strstr(argv_after(v, "-append"), "console=ttyAMA0 "));
	/* virt has one PL011 (the console); the channel is a PCI 16550 (ttyS0). */
	assert_true(argv_has(v, "-device", "pci-serial,chardev=wbchan"));
	for (i = 0; v[i]; i++)
		serials += !strcmp(v[i], "-serial");
	assert_int_equal(serials, 1);
	assert_string_equal(arch->chan_dev, "/dev/ttyS0");
	vm_argv_free(v);
}

static void write_bytes(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void test_image_arch(void **state)
{
	char dir[] = "/tmp/t-vm-ia.XXXXXX", why[256], *p;
	unsigned char img[4096];
	const struct vmhost_arch *arm64 = vmhost_arch_named("arm64");
	const struct vmhost_arch *x86 = vmhost_arch_named("x86-64");

	(void)state;
	assert_non_null(mkdtemp(dir));
	p = xasprintf("%s/img", dir);
	memset(img, 0, sizeof(img));
	memcpy(img + 0x38, "ARM\x64", 4);
	write_bytes(p, img, sizeof(img));
	assert_ptr_equal(vmhost_image_arch(p, why, sizeof(why)), arm64);
	assert_int_equal(vmhost_check_kernel_for(arm64, p, why, sizeof(why)), 0);
	assert_int_equal(vmhost_check_kernel_for(x86, p, why, sizeof(why)), -1);
	assert_string_equal(why, "an arm64 kernel image, the guest is x86-64");
	/* Debian's arm64 vmlinuz: a gzip'd Image. */
	memset(img, 0, sizeof(img));
	memcpy(img, "\x1f\x8b\x08", 3);
	write_bytes(p, img, sizeof(img));
	assert_ptr_equal(vmhost_image_arch(p, why, sizeof(why)), arm64);
	/* An EFI zboot image is refused with its reason. */
	memset(img, 0, sizeof(img));
	memcpy(img, "MZ\0\0zimg", 8);
	write_bytes(p, img, sizeof(img));
	assert_null(vmhost_image_arch(p, why, sizeof(why)));
	assert_non_null(strstr(why, "zboot"));
	memset(img, 0, sizeof(img));
	img[0x1fe] = 0x55;
	img[0x1ff] = 0xaa;
	memcpy(img + 0x202, "HdrS", 4);
	write_bytes(p, img, sizeof(img));
	assert_ptr_equal(vmhost_image_arch(p, why, sizeof(why)), x86);
	assert_int_equal(vmhost_check_kernel_for(arm64, p, why, sizeof(why)), -1);
	assert_string_equal(why, "an x86-64 kernel image, the guest is arm64");
	unlink(p);
	rmdir(dir);
	free(p);
}

static void test_foreign_files(void **state)
{
	char dir[] = "/tmp/t-vm-ff.XXXXXX", why[512], *self, *sr, *cmd;
	const struct vmhost_arch *arm64 = vmhost_arch_named("arm64");
	struct vmhost_guest_files g;

	(void)state;
	assert_non_null(mkdtemp(dir));
	cmd = xasprintf("mkdir -p %s/build %s/build-aarch64 %s/sr/bin && touch %s/build/wakebench "
			"%s/build-aarch64/wakebench %s/sr/bin/busybox",
			dir, dir, dir, dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	self = xasprintf("%s/build/wakebench", dir);
	sr = xasprintf("%s/sr", dir);
	/* The cross-build beside build/, the sysroot's busybox. */
	assert_int_equal(vmhost_foreign_files(arm64, self, NULL, sr, &g, why, sizeof(why)), 0);
	assert_non_null(strstr(g.wakebench, "/build-aarch64/wakebench"));
	assert_int_equal(strncmp(g.wakebench, dir, strlen(dir)), 0);
	assert_string_equal(g.sysroot, sr);
	assert_non_null(strstr(g.busybox, "/sr/bin/busybox"));
	/* A given wakebench wins, and must exist. */
	assert_int_equal(
		vmhost_foreign_files(arm64, self, "/nonexistent/wb", sr, &g, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "/nonexistent/wb"));
	/* No busybox in the sysroot: say how to get one. */
	assert_int_equal(vmhost_foreign_files(arm64, self, NULL, dir, &g, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "arm64-sysroot.sh"));
	cmd = xasprintf("rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(self);
	free(sr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qemu_argv),    cmocka_unit_test(test_console),
		cmocka_unit_test(test_check_kernel), cmocka_unit_test(test_qemu_argv_arm64),
		cmocka_unit_test(test_image_arch),   cmocka_unit_test(test_foreign_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
