/*
 * core.h: the few kernel types the BPF tracer reads, declared by hand with
 * preserve_access_index instead of a vmlinux.h dumped from the build
 * machine's kernel. libbpf relocates every field access against the BTF of
 * the kernel the object is loaded on (CO-RE), so one object serves x86-64
 * and arm64 and any kernel with BTF: the offsets below are never used, only
 * the names. Only fields that every architecture's task_struct has are
 * named (no thread_struct, no pt_regs).
 */
#ifndef WAKEBENCH_BPF_CORE_H
#define WAKEBENCH_BPF_CORE_H

typedef unsigned char __u8;
typedef signed char __s8;
typedef unsigned short __u16;
typedef short __s16;
typedef unsigned int __u32;
typedef int __s32;
typedef unsigned long long __u64;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef _Bool bool;
#define true 1
#define false 0

/* linux/bpf.h values used here (uapi: they never change) */
enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
};

struct thread_info {
	__u32 cpu; /* before 5.16 on some architectures */
} __attribute__((preserve_access_index));

struct task_struct {
	struct thread_info thread_info;
	unsigned int __state; /* 5.14+ */
	unsigned int cpu;     /* 5.16+ on every architecture */
	int pid;
} __attribute__((preserve_access_index));

/* task_struct before 5.14: state was a long */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

#endif
