#!/usr/bin/env python3
"""Generates src/emul/abi/abi_calls.c, abi_ptrs.h and abi_stubs_{common,mpich,ompi}.c:
psim's MPI-ABI libraries (libmpich.so.12 for MPICH's ABI, libmpi.so.40 for Open MPI's).

For every function of psim's include/psim_mpi/mpi.h, a function of the same name taking the
program's MPI's handle values (abi_h), status layout and constants (abi_xlate.c for MPICH's,
abi_xlate_ompi.c for Open MPI's), translating its arguments and calling psim's own function
(found in the psim binary by psim_abi_init). abi_calls.c serves both libraries. Every other
MPI_ function that the real library exports becomes a stub that stops the run naming the call
(the names both MPIs export in one file, each MPI's others in its own). PMPI_ names are aliases. Functions whose arguments are arrays of handles or
statuses, or callbacks, are written by hand (abi_manual.c): the generator only declares their
pointer.

    scripts/gen_mpich_abi.py [MPICH_LIBRARY [OPEN_MPI_LIBRARY]]
      (default /usr/lib/x86_64-linux-gnu/libmpich.so.12 and .../libmpi.so.40)

The output is committed; rerun when include/psim_mpi/mpi.h gains functions. The lists of
names are read from the libraries' dynamic symbol tables (nm -D), only their names.
"""
import os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HDR = os.path.join(ROOT, "include/psim_mpi/mpi.h")
OUT = os.path.join(ROOT, "src/emul/abi")
MPICH = sys.argv[1] if len(sys.argv) > 1 else "/usr/lib/x86_64-linux-gnu/libmpich.so.12"
OMPI = sys.argv[2] if len(sys.argv) > 2 else "/usr/lib/x86_64-linux-gnu/libmpi.so.40"

HANDLES = {"MPI_Comm": "comm", "MPI_Datatype": "dt", "MPI_Op": "op", "MPI_Request": "req",
           "MPI_Group": "group", "MPI_Info": "info", "MPI_Win": "win", "MPI_Errhandler": "errh",
           "MPI_Message": "msg", "MPI_File": "file"}
# MPICH's MPI_File is a pointer (ROMIO's struct ADIOI_FileD *): abi_file on its side
# written by hand in abi_manual.c and abi_attr.c (arrays of handles or statuses, callbacks, special values)
MANUAL = {"MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Testall", "MPI_Testany",
          "MPI_Testsome", "MPI_Startall", "MPI_Type_create_struct", "MPI_Type_struct",
          "MPI_Alltoallw", "MPI_Ialltoallw", "MPI_Op_create", "MPI_Win_create_keyval",
          "MPI_Grequest_start", "MPI_Group_translate_ranks", "MPI_Comm_get_attr",
          "MPI_Attr_get", "MPI_Comm_create_keyval", "MPI_Keyval_create",
          "MPI_Type_create_keyval", "MPI_Get_version", "MPI_Type_get_contents",
          "MPI_Comm_create_errhandler", "MPI_Errhandler_create", "MPI_Win_create_errhandler",
          "MPI_Neighbor_alltoallw", "MPI_Ineighbor_alltoallw", "MPI_File_create_errhandler",
          "MPI_Type_create_darray", "MPI_Win_get_attr"}
# extra names abi_manual.c defines that psim's mpi.h does not declare
MANUAL_ONLY = {"MPI_Pcontrol", "MPI_Type_match_size", "MPI_Comm_c2f", "MPI_Comm_f2c",
               "MPI_Type_c2f", "MPI_Type_f2c", "MPI_Group_c2f", "MPI_Group_f2c", "MPI_Op_c2f",
               "MPI_Op_f2c", "MPI_Request_c2f", "MPI_Request_f2c", "MPI_Info_c2f",
               "MPI_Info_f2c", "MPI_Win_c2f", "MPI_Win_f2c", "MPI_Errhandler_c2f",
               "MPI_Errhandler_f2c", "MPI_Status_c2f", "MPI_Status_f2c", "MPI_Aint_add",
               "MPI_Aint_diff", "MPI_File_c2f", "MPI_File_f2c", "MPI_Message_c2f", "MPI_Message_f2c"}
# handle pointers that are read before being written (the rest are outputs only)
INOUT = re.compile(r"_free$|^MPI_(Type_commit|Wait|Test|Start|Cancel|Request_free|Mrecv|Imrecv|File_close)$")
RANKS = {"source", "dest", "root", "target_rank", "rank"}
# integer constants whose values differ in Open MPI (identity for MPICH: abi.h)
CONSTS = {"assert": "assert", "lock_type": "lock", "order": "order", "split_type": "splittype"}
# buffers that may be MPI_IN_PLACE (Open MPI's is 1, psim's and MPICH's -1)
BUFS = {"sendbuf", "recvbuf"}
# ranks psim gives back, which may be MPI_PROC_NULL (MPICH's -1, psim's -2)
RANKS_OUT = {"rank_source", "rank_dest"}
# distributed graphs' weights: MPICH's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are addresses of its
# own (abi_fortran.c), psim's other values
WEIGHTS = {"weights", "sourceweights", "destweights"}
CALLBACKS = {"MPI_User_function": "abi_puser_fn",
             "MPI_Win_copy_attr_function": "abi_pwin_copy_fn",
             "MPI_Win_delete_attr_function": "abi_pwin_delete_fn",
             "MPI_Comm_copy_attr_function": "abi_pcomm_copy_fn",
             "MPI_Comm_delete_attr_function": "abi_pcomm_delete_fn",
             "MPI_Type_copy_attr_function": "abi_pcomm_copy_fn",
             "MPI_Type_delete_attr_function": "abi_pcomm_delete_fn",
             "MPI_Copy_function": "abi_pcomm_copy_fn",
             "MPI_Delete_function": "abi_pcomm_delete_fn",
             "MPI_Grequest_query_function": "abi_pgreq_query_fn",
             "MPI_Grequest_free_function": "abi_pgreq_free_fn",
             "MPI_Grequest_cancel_function": "abi_pgreq_cancel_fn",
             "MPI_Comm_errhandler_function": "abi_perrh_fn",
             "MPI_Handler_function": "abi_perrh_fn",
             "MPI_Win_errhandler_function": "abi_perrh_fn",
             "MPI_File_errhandler_function": "abi_perrh_fn"}


def ctype(t, side):
    """psim's type text -> C type text on one side ('psim' or 'mpich')."""
    if side == "mpich":
        t = re.sub(r"\bMPI_File\b", "abi_file", t)
    for h in HANDLES:
        t = re.sub(r"\b%s\b" % h, "int" if side == "psim" else "abi_h", t)
    t = re.sub(r"\bMPI_Status\b", "abi_pstatus" if side == "psim" else "abi_status", t)
    t = re.sub(r"\bMPI_Aint\b", "ptrdiff_t", t)
    t = re.sub(r"\bMPI_(Offset|Count)\b", "long long", t)
    for k, v in CALLBACKS.items():
        t = re.sub(r"\b%s\b" % k, v, t)
    return t


def params(text):
    text = text.strip()
    if text == "void":
        return []
    out = []
    for p in text.split(","):
        p = p.strip()
        m = re.match(r"^(.*?)(\w+)((?:\[\w*\])*)$", p)
        typ, name, arr = m.group(1).strip(), m.group(2), m.group(3)
        out.append((typ, name, arr, p))
    return out


def main():
    src = open(HDR).read()
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    src = re.sub(r"^#.*$", "", src, flags=re.M)
    src = re.sub(r"^typedef.*?;", "", src, flags=re.M | re.S)
    protos = []
    for m in re.finditer(r"\b(int|double)\s+(MPI_\w+)\s*\(([^;{]*?)\)\s*;", src):
        protos.append((m.group(1), m.group(2), params(m.group(3))))
    names = {p[1] for p in protos}
    def exported(lib):
        nm = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                            check=True).stdout
        return sorted({l.split()[2] for l in nm.splitlines()
                       if len(l.split()) == 3 and l.split()[1] in "TW" and
                       re.match(r"^MPI_\w+$", l.split()[2])})

    h = ["/* Generated by scripts/gen_mpich_abi.py from include/psim_mpi/mpi.h: do not edit. */",
         "#ifndef PSIM_ABI_PTRS_H", "#define PSIM_ABI_PTRS_H", '#include "emul/abi/abi.h"', ""]
    c = ["/* Generated by scripts/gen_mpich_abi.py from include/psim_mpi/mpi.h: do not edit.",
         " * MPI-ABI entry points that translate their arguments (abi_xlate.c for MPICH's ABI,",
         " * abi_xlate_ompi.c for Open MPI's) and call psim's function of the same name. */",
         "#include <stddef.h>", "#include <string.h>", "", '#include "emul/abi/abi_ptrs.h"', ""]
    binds = []
    for ret, name, ps in protos:
        psig = ", ".join(ctype(p[3], "psim") for p in ps) or "void"
        h.append("extern %s (*p_%s)(%s);" % (ret, name, psig))
        c.append("%s (*p_%s)(%s);" % (ret, name, psig))
        binds.append(name)
        if name in MANUAL:
            continue
        msig = ", ".join(ctype(p[3], "mpich") for p in ps) or "void"
        pre, post, args = [], [], []
        for typ, pn, arr, full in ps:
            base = typ.replace("const", "").replace("*", "").strip()
            ptr = "*" in typ
            if base in HANDLES:
                k = HANDLES[base]
                if arr:
                    raise SystemExit("%s: handle array %s needs a manual wrapper" % (name, pn))
                if not ptr:
                    args.append("abi_%s_in(%s)" % (k, pn))
                else:
                    init = "abi_%s_in(*%s)" % (k, pn) if INOUT.search(name) else "0"
                    pre.append("int %s_p = %s;" % (pn, init))
                    args.append("&%s_p" % pn)
                    post.append("*%s = abi_%s_out(%s_p);" % (pn, k, pn))
            elif base == "MPI_Status":
                if arr:
                    raise SystemExit("%s: status array needs a manual wrapper" % name)
                if "const" in typ:
                    pre.append("abi_pstatus %s_p;" % pn)
                    pre.append("abi_status_in(%s, &%s_p);" % (pn, pn))
                    args.append("&%s_p" % pn)
                else:
                    pre.append("abi_pstatus %s_b, *%s_p = abi_status_ignored(%s) ? NULL : &%s_b;"
                               % (pn, pn, pn, pn))
                    # the program's status first: psim leaves MPI_ERROR as it was in calls
                    # that give one status (MPICH's pt2pt/mprobe checks it)
                    pre.append("if (%s_p) abi_status_in(%s, %s_p);" % (pn, pn, pn))
                    args.append("%s_p" % pn)
                    post.append("if (%s_p) abi_status_out(%s_p, %s);" % (pn, pn, pn))
            elif base in CALLBACKS:
                raise SystemExit("%s: callback %s needs a manual wrapper" % (name, pn))
            elif base == "int" and (arr or ptr) and pn in WEIGHTS:
                args.append("abi_weights_in(%s)" % pn)
            elif base == "int" and not arr and not ptr and pn in CONSTS:
                args.append("abi_%s_in(%s)" % (CONSTS[pn], pn))
            elif base == "int" and ptr and not arr and pn == "status" and name == "MPI_Topo_test":
                pre.append("int %s_p = 0;" % pn)
                args.append("&%s_p" % pn)
                post.append("*%s = abi_topo_out(%s_p);" % (pn, pn))
            elif base == "void" and ptr and not arr and pn in BUFS:
                args.append("abi_buf_in(%s)" % pn)
            elif base == "int" and not arr and not ptr and pn in RANKS:
                args.append("abi_rank_in(%s)" % pn)
            elif base == "int" and ptr and not arr and pn in RANKS_OUT:
                pre.append("int %s_p = 0;" % pn)
                args.append("&%s_p" % pn)
                post.append("*%s = abi_rank_out(%s_p);" % (pn, pn))
            elif base == "int" and not arr and not ptr and pn == "keyval":
                args.append("abi_keyval_in(%s)" % pn)
            elif base == "int" and ptr and not arr and pn == "keyval":
                pre.append("int %s_p = abi_keyval_in(*%s);" % (pn, pn))
                args.append("&%s_p" % pn)
                post.append("*%s = abi_keyval_out(%s_p);" % (pn, pn))
            elif base == "int" and not ptr and pn in ("errorcode", "errorclass") and name != "MPI_Abort":
                args.append("abi_err_in(%s)" % pn)
            elif base == "int" and ptr and pn in ("errorclass", "errorcode", "combiner"):
                what = "combiner" if pn == "combiner" else "err"
                pre.append("int %s_p = 0;" % pn)
                args.append("&%s_p" % pn)
                post.append("*%s = abi_%s_out(%s_p);" % (pn, what, pn))
            else:
                args.append(pn)
        c.append("%s %s(%s) {" % (ret, name, msig))
        c.append('  if (!p_%s) abi_missing("%s");' % (name, name))
        c += ["  " + s for s in pre]
        call = "p_%s(%s)" % (name, ", ".join(args))
        if ret == "double":
            c.append("  return %s;" % call)
        else:
            c.append("  int rc = %s;" % call)
            c += ["  " + s for s in post]
            c.append("  return abi_err_out(rc);")
        c.append("}")
        c.append("")
    c.append("/* The profiling interface: PMPI_ names are the same functions. */")
    for n in sorted(p[1] for p in protos if p[1] not in MANUAL):
        c.append('extern __typeof__(%s) P%s __attribute__((alias("%s")));' % (n, n, n))
    c.append("")
    counts = []
    lacks = {tag: [n for n in exported(lib) if n not in names and n not in MANUAL_ONLY]
             for tag, lib in (("mpich", MPICH), ("ompi", OMPI))}
    both = sorted(set(lacks["mpich"]) & set(lacks["ompi"]))
    for tag, who in (("common", "both MPICH's libmpich.so.12 and Open MPI's libmpi.so.40"),
                     ("mpich", "MPICH's libmpich.so.12 alone"), ("ompi", "Open MPI's libmpi.so.40 alone")):
        stubs = both if tag == "common" else [n for n in lacks[tag] if n not in both]
        counts.append(len(stubs))
        t = ["/* Generated by scripts/gen_mpich_abi.py from the names %s exports" % who,
             " * and include/psim_mpi/mpi.h: do not edit. What that MPI exports and psim does not",
             " * implement: the run stops, naming the call. */",
             '#include "emul/abi/abi.h"', ""]
        for n in stubs:
            t.append('int %s(void);' % n)
            t.append('int %s(void) { abi_missing("%s"); }' % (n, n))
        t.append("")
        for n in stubs:
            t.append('extern __typeof__(%s) P%s __attribute__((alias("%s")));' % (n, n, n))
        open(os.path.join(OUT, "abi_stubs_%s.c" % tag), "w").write("\n".join(t) + "\n")
    c.append("const abi_bind abi_binds[] = {")
    for n in binds:
        c.append('  {"%s", &p_%s},' % (n, n))
    c.append("  {NULL, NULL}};")
    h.append("")
    h.append("#endif")
    open(os.path.join(OUT, "abi_ptrs.h"), "w").write("\n".join(h) + "\n")
    open(os.path.join(OUT, "abi_calls.c"), "w").write("\n".join(c) + "\n")
    print("%d psim functions (%d by hand); names refused: %d of both MPIs, %d of MPICH's alone, "
          "%d of Open MPI's alone" % (len(protos), len(MANUAL), counts[0], counts[1], counts[2]))


main()
