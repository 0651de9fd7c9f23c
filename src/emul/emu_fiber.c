/* Fibers: each rank's stack and the switch between it and the scheduler.
 *
 * Stacks are mmap'ed (MAP_NORESERVE: only touched pages cost memory) with a PROT_NONE guard
 * page below them, so an overflow faults on the guard instead of silently corrupting the
 * neighbouring rank; emu_signal.c recognises the address and reports it.
 *
 * On x86-64 the switch is hand-written: it saves the six callee-saved registers, the SSE and
 * x87 control words and the stack pointer (about 5 ns), where swapcontext also saves and
 * restores the signal mask with a system call (about 0.3-1 us; see bench/emul_bench.sh).
 * Elsewhere (or with -DPSIM_UCONTEXT) ucontext is used.
 *
 * AddressSanitizer must be told about every stack switch, or it reports false stack errors:
 * the __sanitizer_*_switch_fiber annotations below do that when built with ASan. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "emul/emu.h"

#if defined(__SANITIZE_ADDRESS__)
#define EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EMU_ASAN 1
#endif
#endif
#ifdef EMU_ASAN
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old,
                                     size_t *size_old);
#endif

/* ThreadSanitizer, likewise: each fiber is one of its fibers, and every switch says so
 * (psim run --threads runs fibers on several threads: a TSan build checks their handoffs). */
#if defined(__SANITIZE_THREAD__)
#define EMU_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define EMU_TSAN 1
#endif
#endif
#ifdef EMU_TSAN
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
#define TSAN_SWITCH(from, to) do { (from)->tsan_fiber = __tsan_get_current_fiber(); __tsan_switch_to_fiber((to)->tsan_fiber, 0); } while (0)
#define TSAN_BACK(to) __tsan_switch_to_fiber((to)->tsan_fiber, 0)
#else
#define TSAN_SWITCH(from, to) ((void)0)
#define TSAN_BACK(to) ((void)0)
#endif

#if defined(__x86_64__) && !defined(PSIM_UCONTEXT)
#define EMU_ASM 1
/* void emu_switch(void **save_sp, void *new_sp) */
void emu_switch(void **save_sp, void *new_sp);
void emu_trampoline(void);
__asm__(".text\n"
        ".globl emu_switch\n"
        ".type emu_switch,@function\n"
        "emu_switch:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  subq $16, %rsp\n"
        "  stmxcsr 8(%rsp)\n"
        "  fnstcw (%rsp)\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  ldmxcsr 8(%rsp)\n"
        "  fldcw (%rsp)\n"
        "  addq $16, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size emu_switch, .-emu_switch\n"
        /* first entry of a fiber: rbx = fn, r12 = arg; fn never returns */
        ".globl emu_trampoline\n"
        ".type emu_trampoline,@function\n"
        "emu_trampoline:\n"
        "  movq %r12, %rdi\n"
        "  callq *%rbx\n"
        "  ud2\n"
        ".size emu_trampoline, .-emu_trampoline\n");
#endif

const char *emu_fiber_method(void) {
#ifdef EMU_ASM
  return "x86-64 hand-written switch";
#else
  return "ucontext";
#endif
}

#ifndef EMU_ASM
static void uctx_entry(unsigned hi, unsigned lo) {
  emu_fiber *f = (emu_fiber *)(((uintptr_t)hi << 32) | (uintptr_t)lo);
  f->fn(f->arg);
  abort();
}
#endif

int emu_fiber_init(emu_fiber *f, size_t stack_size, void (*fn)(void *), void *arg, psim_err *err) {
  memset(f, 0, sizeof *f);
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  stack_size = (stack_size + page - 1) / page * page;
  f->map_len = stack_size + page;
  f->map = mmap(NULL, f->map_len, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (f->map == MAP_FAILED) {
    f->map = NULL;
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "cannot map a %zu-byte rank stack: %s", stack_size,
                     strerror(errno));
  }
  if (mprotect(f->map, page, PROT_NONE) < 0) {
    munmap(f->map, f->map_len);
    f->map = NULL;
    return psim_errf(err, PSIM_EXIT_INPUT, NULL, 0, "cannot protect a stack guard page: %s", strerror(errno));
  }
  f->fn = fn;
  f->arg = arg;
#ifdef EMU_TSAN
  f->tsan_fiber = __tsan_create_fiber(0);
#endif
  f->asan_stack = f->map + page;
  f->asan_size = stack_size;
  char *top = f->map + f->map_len;
#ifdef EMU_ASM
  uintptr_t sp = ((uintptr_t)top & ~(uintptr_t)15) - 16;
  uint64_t *p = (uint64_t *)sp;
  *--p = (uint64_t)(uintptr_t)emu_trampoline;  /* return address of emu_switch */
  *--p = 0;                                    /* rbp */
  *--p = (uint64_t)(uintptr_t)fn;              /* rbx */
  *--p = (uint64_t)(uintptr_t)arg;             /* r12 */
  *--p = 0;                                    /* r13 */
  *--p = 0;                                    /* r14 */
  *--p = 0;                                    /* r15 */
  p -= 2;
  ((uint32_t *)p)[2] = 0x1F80;                 /* MXCSR default */
  ((uint16_t *)p)[0] = 0x037F;                 /* x87 control word default */
  f->sp = p;
#else
  ucontext_t *u = xcalloc(1, sizeof *u);
  getcontext(u);
  u->uc_stack.ss_sp = f->map + page;
  u->uc_stack.ss_size = stack_size;
  u->uc_link = NULL;
  uintptr_t v = (uintptr_t)f;
  makecontext(u, (void (*)(void))uctx_entry, 2, (unsigned)(v >> 32), (unsigned)(v & 0xffffffffu));
  f->uctx = u;
  (void)top;
#endif
  return 0;
}

void emu_fiber_free(emu_fiber *f) {
#ifdef EMU_TSAN
  if (f->tsan_fiber) __tsan_destroy_fiber(f->tsan_fiber);
  f->tsan_fiber = NULL;
#endif
  if (f->map) munmap(f->map, f->map_len);
  f->map = NULL;
  free(f->uctx);
  f->uctx = NULL;
}

int emu_fiber_in_guard(const emu_fiber *f, const void *addr) {
  if (!f->map) return 0;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  const char *a = addr;
  /* a large frame may jump past the guard page: count a little below it too */
  return a >= f->map - 16 * page && a < f->map + page;
}

static void do_switch(emu_fiber *from, emu_fiber *to) {
#ifdef EMU_ASM
  emu_switch(&from->sp, to->sp);
#else
  if (!from->uctx) from->uctx = xcalloc(1, sizeof(ucontext_t));
  swapcontext(from->uctx, to->uctx);
#endif
}

void emu_fiber_enter(emu_fiber_host *h, emu_fiber *f) {
  TSAN_SWITCH(&h->self, f);
#ifdef EMU_ASAN
  void *fake = NULL;
  __sanitizer_start_switch_fiber(&fake, f->asan_stack, f->asan_size);
  do_switch(&h->self, f);
  __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#else
  do_switch(&h->self, f);
#endif
}

void emu_fiber_started(emu_fiber_host *h, emu_fiber *f) {
#ifdef EMU_ASAN
  (void)f;
  __sanitizer_finish_switch_fiber(NULL, &h->asan_stack, &h->asan_size);
#else
  (void)h;
  (void)f;
#endif
}

void emu_fiber_leave(emu_fiber_host *h, emu_fiber *f, int dying) {
  TSAN_BACK(&h->self);
#ifdef EMU_ASAN
  __sanitizer_start_switch_fiber(dying ? NULL : &f->asan_fake, h->asan_stack, h->asan_size);
  do_switch(f, &h->self);
  __sanitizer_finish_switch_fiber(f->asan_fake, &h->asan_stack, &h->asan_size);
#else
  (void)dying;
  do_switch(f, &h->self);
#endif
}
