/* psim-start: the program interpreter (PT_INTERP) of programs built with psimcc.
 *
 * psimcc links a program as a shared object (psim run loads one private copy per rank) and
 * names this file as its interpreter, so that starting the program directly, as build systems
 * do with their test programs (./conftest, CMake try_run), runs it as MPI's singleton: a
 * 1-rank job. The kernel maps the program and this interpreter and jumps here; the dynamic
 * loader never runs (the program's MPI functions live in psim, it could not be linked alone).
 * We exec
 *     $PSIM run --singleton --np ${PSIM_NP:-1} $PSIM_RUN_ARGS -- PROGRAM ARGS...
 * where PSIM defaults to the psim binary this was built with, and PROGRAM is the path the
 * program was started by (AT_EXECFN).
 *
 * Freestanding: no libc (an interpreter is entered before any loader), raw system calls,
 * x86-64 and AArch64 Linux. Built static by CMake with its own flags (never sanitized). */
#ifndef PSIM_START_PSIM
#error "PSIM_START_PSIM (the psim binary's path) must be defined"
#endif

typedef unsigned long ulong;

#if defined(__x86_64__)
__asm__(".text\n.global _start\n.type _start,@function\n_start:\n"
        "  xor %rbp, %rbp\n  mov %rsp, %rdi\n  and $-16, %rsp\n  call psim_start_main\n  hlt\n");
static long sys3(long n, long a, long b, long c) {
  long r;
  __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
  return r;
}
enum { SYS_WRITE = 1, SYS_EXECVE = 59, SYS_EXIT_GROUP = 231 };
#elif defined(__aarch64__)
__asm__(".text\n.global _start\n.type _start,%function\n_start:\n"
        "  mov x29, #0\n  mov x0, sp\n  bl psim_start_main\n  brk #0\n");
static long sys3(long n, long a, long b, long c) {
  register long x8 __asm__("x8") = n;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
  return x0;
}
enum { SYS_WRITE = 64, SYS_EXECVE = 221, SYS_EXIT_GROUP = 94 };
#else
#error "psim-start supports x86-64 and AArch64 Linux"
#endif

#define AT_EXECFN 31
#define MAX_EXTRA 128       /* words of PSIM_RUN_ARGS */
#define MAX_ARGS 4096       /* the program's own arguments */

static ulong len(const char *s) {
  ulong n = 0;
  while (s[n]) n++;
  return n;
}

static void say(const char *s) { sys3(SYS_WRITE, 2, (long)s, (long)len(s)); }

__attribute__((noreturn)) static void die(const char *what, const char *arg) {
  say("psim-start: ");
  say(what);
  if (arg) { say(arg); }
  say("\n");
  for (;;) sys3(SYS_EXIT_GROUP, 127, 0, 0);
}

/* The value of NAME in envp, or 0. */
static char *env(char **envp, const char *name) {
  ulong n = len(name);
  for (; *envp; envp++) {
    ulong i = 0;
    while (i < n && (*envp)[i] == name[i]) i++;
    if (i == n && (*envp)[n] == '=') return *envp + n + 1;
  }
  return 0;
}

static char words_buf[8192];

__attribute__((noreturn, used)) void psim_start_main(long *sp);
void psim_start_main(long *sp) {
  long argc = sp[0];
  char **argv = (char **)(sp + 1);
  char **envp = argv + argc + 1;
  char **e = envp;
  while (*e) e++;
  const char *prog = 0;
  for (ulong *av = (ulong *)(e + 1); av[0]; av += 2)
    if (av[0] == AT_EXECFN) prog = (const char *)av[1];
  if (!prog) prog = argv[0];
  if (argc > MAX_ARGS) die("too many arguments", 0);

  static char *nargv[MAX_ARGS + MAX_EXTRA + 16];
  int n = 0;
  char *psim = env(envp, "PSIM");
  if (!psim || !*psim) psim = (char *)PSIM_START_PSIM;
  char *np = env(envp, "PSIM_NP");
  nargv[n++] = psim;
  nargv[n++] = (char *)"run";
  nargv[n++] = (char *)"--singleton";
  nargv[n++] = (char *)"--np";
  nargv[n++] = np && *np ? np : (char *)"1";
  /* PSIM_RUN_ARGS: more psim run options, split at blanks (no quoting) */
  char *extra = env(envp, "PSIM_RUN_ARGS");
  if (extra) {
    ulong l = len(extra);
    if (l >= sizeof words_buf) die("PSIM_RUN_ARGS is too long", 0);
    for (ulong i = 0; i <= l; i++) words_buf[i] = extra[i];
    char *p = words_buf;
    int nw = 0;
    for (;;) {
      while (*p == ' ' || *p == '\t' || *p == '\n') *p++ = 0;
      if (!*p) break;
      if (++nw > MAX_EXTRA) die("PSIM_RUN_ARGS has too many words", 0);
      nargv[n++] = p;
      while (*p && *p != ' ' && *p != '\t' && *p != '\n') p++;
    }
  }
  nargv[n++] = (char *)"--";
  nargv[n++] = (char *)prog;
  for (long i = 1; i < argc; i++) nargv[n++] = argv[i];
  nargv[n] = 0;
  sys3(SYS_EXECVE, (long)psim, (long)nargv, (long)envp);
  die("cannot execute psim (set PSIM to the psim binary): ", psim);
}
