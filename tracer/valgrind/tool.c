/* perpi's Valgrind tool: streams the main thread's instructions to perpi.
 *
 * The tool knows no x86 semantics. When Valgrind translates a superblock,
 * the tool sends its instructions' addresses and bytes to perpi, which
 * decodes them with its own x86 layer (tracer/x86.h) and answers, for each,
 * an id and the registers its semantics read at run time (protocol.h). The
 * generated code then stores, before each instruction runs, a record of its
 * id and those registers' values into a buffer (no helper call per
 * instruction; one guarded flush per superblock), and perpi resolves the
 * record into the same event the ptrace tracer would produce.
 *
 * A record counts only once its instruction has completed: the buffer's
 * position moves past record k when instruction k+1 starts, when a side
 * exit is taken after k, or at the superblock's end, never when k faults.
 * Other threads' records go to a scratch buffer; a forked child stops
 * talking to perpi. Built against the valgrind package's static libraries
 * (configure --with-valgrind); run by perpi with VALGRIND_LIB naming the
 * directory that holds it (tracer/valgrind_spawn.c). */
#include <stddef.h>

#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_options.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

#include "libvex_guest_amd64.h"

#include "tracer/valgrind/protocol.h"

/* Valgrind's core exports these without declaring them to tools. */
extern Int VG_(safe_fd)(Int oldfd);
extern UWord *VG_(client_auxv);

#define BUF_SIZE (1 << 20)
#define AUX_NULL 0 /* AT_NULL and AT_ENTRY of the ELF ABI */
#define AUX_ENTRY 9
#define MAIN_TID 1
#define OFF_GPR(n) (offsetof(VexGuestAMD64State, guest_RAX) + 8 * (n))

static Int out_fd = -1, req_fd = -1, rep_fd = -1;
static Bool is_child, hello_sent;

/* The generated code reads and advances pp_pos; pp_limit is its buffer's end. */
static UChar main_buf[BUF_SIZE], scratch_buf[BUF_SIZE];
static UChar *pp_pos = main_buf, *pp_limit = main_buf + BUF_SIZE;
static UChar *main_pos; /* the main buffer's position while another thread runs */
static Bool other_running;

static void die(const HChar *what)
{
	VG_(message)(Vg_UserMsg, "perpi tool: %s: perpi is gone, stopping\n", what);
	VG_(exit)(126);
}

static void write_all(const UChar *p, Int n)
{
	while (n > 0) {
		Int w = VG_(write)(out_fd, p, n);
		if (w <= 0)
			die("writing events");
		p += w, n -= w;
	}
}

static void read_all(UChar *p, Int n)
{
	while (n > 0) {
		Int r = VG_(read)(rep_fd, p, n);
		if (r <= 0)
			die("reading a reply");
		p += r, n -= r;
	}
}

static UChar **main_cursor(void)
{
	return other_running ? &main_pos : &pp_pos;
}

static void flush_main(void)
{
	UChar **cur = main_cursor();
	if (is_child || out_fd < 0) {
		*cur = main_buf;
		return;
	}
	write_all(main_buf, (Int)(*cur - main_buf));
	*cur = main_buf;
}

/* Called by the generated code when a superblock's records may not fit. */
static void pp_flush(void)
{
	if (other_running)
		pp_pos = scratch_buf;
	else
		flush_main();
}

static void put_marker(UInt kind, const void *payload, Int size)
{
	UChar **cur = main_cursor();
	if (*cur + 8 + size > main_buf + BUF_SIZE)
		flush_main();
	UInt head[2] = {0, kind};
	VG_(memcpy)(*cur, head, 8);
	VG_(memcpy)(*cur + 8, payload, size);
	*cur += 8 + size;
}

static void send_hello(const VexArchInfo *arch)
{
	ULong entry = 0;
	for (UWord *a = VG_(client_auxv); a && a[0] != AUX_NULL; a += 2)
		if (a[0] == AUX_ENTRY)
			entry = a[1];
	/* XCR0 as the guest's xgetbv reads it: x87, SSE, and AVX when VEX has it */
	ULong xcr0 = (arch->hwcaps & VEX_HWCAPS_AMD64_AVX) ? 7 : 3;
	UChar p[VGP_HELLO_SIZE];
	UInt v[2] = {VGP_VERSION, (UInt)VG_(getpid)()};
	VG_(memcpy)(p, v, 8);
	VG_(memcpy)(p + 8, &entry, 8);
	VG_(memcpy)(p + 16, &xcr0, 8);
	put_marker(VGP_HELLO, p, sizeof(p));
	hello_sent = True;
}

/* The superblock's instructions, and perpi's answers. */
struct sb_insn {
	Addr addr;
	UInt len;
	struct vgp_reply r;
	UInt offset; /* of its record from the superblock's first */
};

static Int ask_perpi(struct sb_insn *in, Int n)
{
	static UChar req[8 + VGP_MAX_REQUEST * 24];
	UInt head[2] = {VGP_REQUEST_MAGIC, (UInt)n};
	Int len = 8;
	VG_(memcpy)(req, head, 8);
	for (Int i = 0; i < n; i++) {
		ULong a = in[i].addr;
		VG_(memcpy)(req + len, &a, 8);
		req[len + 8] = (UChar)in[i].len;
		VG_(memcpy)(req + len + 9, (void *)in[i].addr, in[i].len);
		len += 9 + in[i].len;
	}
	Int w = 0;
	while (w < len) {
		Int r = VG_(write)(req_fd, req + w, len - w);
		if (r <= 0)
			die("sending a request");
		w += r;
	}
	for (Int i = 0; i < n; i++) {
		read_all((UChar *)&in[i].r, sizeof(in[i].r));
		if (!in[i].r.id)
			die("perpi could not decode an instruction");
	}
	return 0;
}

static IRTemp assign(IRSB *sb, IRType ty, IRExpr *e)
{
	IRTemp t = newIRTemp(sb->tyenv, ty);
	addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
	return t;
}

static IRExpr *at(IRSB *sb, IRTemp base, UInt offset)
{
	return IRExpr_RdTmp(assign(
	    sb, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(base), mkIRExpr_HWord(offset))));
}

static void store(IRSB *sb, IRExpr *addr, IRExpr *data)
{
	addStmtToIRSB(sb, IRStmt_Store(Iend_LE, addr, data));
}

/* The record of one instruction: its id, then its slots' values. */
static void emit_record(IRSB *sb, IRTemp base, const struct sb_insn *in)
{
	UInt o = in->offset;
	store(sb, at(sb, base, o), IRExpr_Const(IRConst_U32(in->r.id)));
	o += 4;
	for (Int i = 0; i < in->r.n_slots; i++) {
		UInt s = in->r.slot[i];
		if (s >= VGP_SLOT_YMM) {
			Int g = offsetof(VexGuestAMD64State, guest_YMM0) + 32 * (s - VGP_SLOT_YMM);
			for (Int q = 0; q < 4; q++)
				store(sb, at(sb, base, o + 8 * q),
				      IRExpr_RdTmp(
					  assign(sb, Ity_I64, IRExpr_Get(g + 8 * q, Ity_I64))));
			o += 32;
			continue;
		}
		IRExpr *v;
		if (s < 16)
			v = IRExpr_Get(OFF_GPR(s), Ity_I64);
		else if (s == VGP_SLOT_FS_BASE)
			v = IRExpr_Get(offsetof(VexGuestAMD64State, guest_FS_CONST), Ity_I64);
		else if (s == VGP_SLOT_GS_BASE)
			v = IRExpr_Get(offsetof(VexGuestAMD64State, guest_GS_CONST), Ity_I64);
		else
			v = IRExpr_Unop(
			    Iop_32Uto64,
			    IRExpr_RdTmp(assign(
				sb, Ity_I32,
				IRExpr_Get(offsetof(VexGuestAMD64State, guest_FTOP), Ity_I32))));
		store(sb, at(sb, base, o), IRExpr_RdTmp(assign(sb, Ity_I64, v)));
		o += 8;
	}
}

/* The records before offset count: pp_pos moves past them. */
static void commit(IRSB *sb, IRTemp base, UInt offset, IRExpr *guard)
{
	IRExpr *addr = mkIRExpr_HWord((HWord)&pp_pos);
	if (guard)
		addStmtToIRSB(sb, IRStmt_StoreG(Iend_LE, addr, at(sb, base, offset), guard));
	else
		store(sb, addr, at(sb, base, offset));
}

/* Flush if the superblock's records may not fit; returns the temp that
 * holds where they go. */
static IRTemp prologue(IRSB *sb, UInt bytes)
{
	IRExpr *pos_addr = mkIRExpr_HWord((HWord)&pp_pos);
	IRTemp pos = assign(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, pos_addr));
	IRTemp lim =
	    assign(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&pp_limit)));
	IRTemp need =
	    assign(sb, Ity_I64, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(pos), mkIRExpr_HWord(bytes)));
	IRTemp full =
	    assign(sb, Ity_I1, IRExpr_Binop(Iop_CmpLT64U, IRExpr_RdTmp(lim), IRExpr_RdTmp(need)));
	IRDirty *d =
	    unsafeIRDirty_0_N(0, "pp_flush", VG_(fnptr_to_fnentry)(&pp_flush), mkIRExprVec_0());
	d->guard = IRExpr_RdTmp(full);
	d->mFx = Ifx_Modify;
	d->mAddr = pos_addr;
	d->mSize = 8;
	addStmtToIRSB(sb, IRStmt_Dirty(d));
	return assign(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, pos_addr));
}

/* Jumps that leave the last instruction unfinished: it faulted. */
static Bool is_fault(IRJumpKind jk)
{
	return jk == Ijk_NoDecode || jk == Ijk_SigILL || jk == Ijk_SigSEGV || jk == Ijk_SigBUS ||
	       jk == Ijk_SigFPE || jk == Ijk_SigFPE_IntDiv || jk == Ijk_SigFPE_IntOvf ||
	       jk == Ijk_EmFail || jk == Ijk_MapFail;
}

static void pp_nodecode(Addr addr)
{
	UChar p[VGP_NODECODE_SIZE];
	UInt len = 0;
	VG_(memset)(p, 0, sizeof(p));
	while (len < 15 && VG_(am_is_valid_for_client)(addr + len, 1, VKI_PROT_READ))
		len++;
	ULong a = addr;
	VG_(memcpy)(p, &len, 4);
	VG_(memcpy)(p + 4, &a, 8);
	VG_(memcpy)(p + 12, (void *)addr, len);
	put_marker(VGP_NODECODE, p, sizeof(p));
	flush_main();
	VG_(exit)(126); /* perpi reports it: no result from another path than the native one */
}

static Int collect(const IRSB *sb, struct sb_insn *in)
{
	Int n = 0;
	for (Int i = 0; i < sb->stmts_used; i++) {
		const IRStmt *st = sb->stmts[i];
		if (st->tag != Ist_IMark || st->Ist.IMark.len == 0)
			continue;
		tl_assert(n < VGP_MAX_REQUEST);
		in[n].addr = (Addr)st->Ist.IMark.addr;
		in[n].len = st->Ist.IMark.len;
		n++;
	}
	return n;
}

static void lay_out(struct sb_insn *in, Int n, UInt *bytes)
{
	UInt o = 0;
	for (Int i = 0; i < n; i++) {
		in[i].offset = o;
		o += 4;
		for (Int s = 0; s < in[i].r.n_slots; s++)
			o += VGP_SLOT_SIZE(in[i].r.slot[s]);
	}
	in[n].offset = o;
	*bytes = o;
}

static IRSB *pp_instrument(VgCallbackClosure *closure, IRSB *in_sb, const VexGuestLayout *layout,
			   const VexGuestExtents *extents, const VexArchInfo *arch,
			   IRType guest_word, IRType host_word)
{
	static struct sb_insn in[VGP_MAX_REQUEST + 1];
	if (is_child || out_fd < 0)
		return in_sb;
	if (!hello_sent)
		send_hello(arch);
	UInt bytes;
	Int n = collect(in_sb, in);
	if (n)
		ask_perpi(in, n);
	lay_out(in, n, &bytes);
	IRSB *sb = deepCopyIRSBExceptStmts(in_sb);
	IRTemp base = IRTemp_INVALID;
	Int k = -1;
	for (Int i = 0; i < in_sb->stmts_used; i++) {
		IRStmt *st = in_sb->stmts[i];
		if (st->tag == Ist_IMark && st->Ist.IMark.len > 0) {
			addStmtToIRSB(sb, st);
			if (++k == 0)
				base = prologue(sb, bytes);
			emit_record(sb, base, &in[k]);
			if (k > 0)
				commit(sb, base, in[k].offset, NULL);
			continue;
		}
		if (st->tag == Ist_Exit && k >= 0)
			commit(sb, base, in[is_fault(st->Ist.Exit.jk) ? k : k + 1].offset,
			       st->Ist.Exit.guard);
		addStmtToIRSB(sb, st);
	}
	if (k >= 0)
		commit(sb, base, in[is_fault(in_sb->jumpkind) ? k : k + 1].offset, NULL);
	if (in_sb->jumpkind == Ijk_NoDecode && in_sb->next->tag == Iex_Const) {
		IRDirty *d = unsafeIRDirty_0_N(
		    0, "pp_nodecode", VG_(fnptr_to_fnentry)(&pp_nodecode),
		    mkIRExprVec_1(mkIRExpr_HWord((HWord)in_sb->next->Iex.Const.con->Ico.U64)));
		addStmtToIRSB(sb, IRStmt_Dirty(d));
	}
	return sb;
}

static void pp_start_client_code(ThreadId tid, ULong blocks_done)
{
	if (tid == MAIN_TID && other_running) {
		pp_pos = main_pos;
		pp_limit = main_buf + BUF_SIZE;
		other_running = False;
	} else if (tid != MAIN_TID && !other_running) {
		main_pos = pp_pos;
		pp_pos = scratch_buf;
		pp_limit = scratch_buf + BUF_SIZE;
		other_running = True;
	}
}

static void pp_pre_deliver_signal(ThreadId tid, Int sig, Bool alt_stack)
{
	if (tid != MAIN_TID || is_child)
		return;
	UChar p[VGP_SIGNAL_SIZE];
	UInt s = (UInt)sig;
	ULong pc = VG_(get_IP)(tid), sp = VG_(get_SP)(tid);
	VG_(memcpy)(p, &s, 4);
	VG_(memcpy)(p + 4, &pc, 8);
	VG_(memcpy)(p + 12, &sp, 8);
	put_marker(VGP_SIGNAL, p, sizeof(p));
}

static Bool is_exec(UInt sysno)
{
	return sysno == __NR_execve || sysno == __NR_execveat;
}

static void pp_pre_syscall(ThreadId tid, UInt sysno, UWord *args, UInt n)
{
	if (!is_exec(sysno) || is_child)
		return;
	UInt zero = 0;
	if (tid == MAIN_TID)
		put_marker(VGP_EXEC, &zero, 4);
	flush_main(); /* the new program replaces this one */
}

static void pp_post_syscall(ThreadId tid, UInt sysno, UWord *args, UInt n, SysRes res)
{
	UInt zero = 0;
	if (is_exec(sysno) && tid == MAIN_TID && !is_child)
		put_marker(VGP_EXEC_FAILED, &zero, 4);
}

static void pp_fork_child(ThreadId tid)
{
	is_child = True; /* runs on untraced, as under ptrace */
	VG_(close)(out_fd);
	VG_(close)(req_fd);
	VG_(close)(rep_fd);
	out_fd = req_fd = rep_fd = -1;
	main_pos = pp_pos = scratch_buf;
	pp_limit = scratch_buf + BUF_SIZE;
	other_running = True;
}

static Bool pp_process_cmd_line_option(const HChar *arg)
{
	if VG_INT_CLO (arg, "--perpi-out", out_fd) {
	} else if VG_INT_CLO (arg, "--perpi-requests", req_fd) {
	} else if VG_INT_CLO (arg, "--perpi-replies", rep_fd) {
	} else
		return False;
	return True;
}

static void pp_print_usage(void)
{
	VG_(printf)("    --perpi-out=FD --perpi-requests=FD --perpi-replies=FD  (set by perpi)\n");
}

static void pp_print_debug_usage(void)
{
}

static void pp_post_clo_init(void)
{
	if (out_fd < 0 || req_fd < 0 || rep_fd < 0) {
		VG_(umsg)("perpi tool: run it through perpi --backend=valgrind\n");
		VG_(exit)(2);
	}
	/* out of the program's sight, closed on exec */
	out_fd = VG_(safe_fd)(out_fd);
	req_fd = VG_(safe_fd)(req_fd);
	rep_fd = VG_(safe_fd)(rep_fd);
	/* registers read at an instruction's start must be exact */
	VG_(clo_vex_control).iropt_register_updates_default = VexRegUpdAllregsAtEachInsn;
	VG_(clo_px_file_backed) = VexRegUpdAllregsAtEachInsn;
}

static void pp_fini(Int exit_code)
{
	if (is_child || out_fd < 0)
		return;
	UInt code = (UInt)exit_code;
	put_marker(VGP_END, &code, 4);
	flush_main();
}

static void pp_pre_clo_init(void)
{
	VG_(details_name)("perpi");
	VG_(details_version)(NULL);
	VG_(details_description)("perpi's instruction stream");
	VG_(details_copyright_author)("perpi's authors");
	VG_(details_bug_reports_to)("perpi's authors");
	VG_(basic_tool_funcs)(pp_post_clo_init, pp_instrument, pp_fini);
	VG_(needs_command_line_options)
	(pp_process_cmd_line_option, pp_print_usage, pp_print_debug_usage);
	VG_(needs_syscall_wrapper)(pp_pre_syscall, pp_post_syscall);
	VG_(track_start_client_code)(pp_start_client_code);
	VG_(track_pre_deliver_signal)(pp_pre_deliver_signal);
	VG_(atfork)(NULL, NULL, pp_fork_child);
}

VG_DETERMINE_INTERFACE_VERSION(pp_pre_clo_init)
