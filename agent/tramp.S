/*
 * tramp.S - the two shared halves of every hook: the entry trampoline
 * (reached from a site's stub with the site in r11) and the return
 * trampoline (reached by a `ret` whose address the entry swapped).
 *
 * Both build a struct pt_regs on the stack in the kernel's layout, so a
 * probe program reads arguments and the return value at the same ctx
 * offsets as in a kernel uprobe; both keep xmm0-7 (argument and return
 * registers that the C side may not touch, but libc calls on its slow
 * paths could) and the flags.  Everything below the entry's rsp is free
 * at a function entry and after a return, so nothing else is disturbed.
 *
 * pt_regs offsets: r15 0, r14 8, r13 16, r12 24, bp 32, bx 40, r11 48,
 * r10 56, r9 64, r8 72, ax 80, cx 88, dx 96, si 104, di 112, orig_ax 120,
 * ip 128, cs 136, flags 144, sp 152, ss 160; 168 bytes.
 */
	.intel_syntax noprefix
	.text

/* save every register but r11 and rax into pt_regs at rsp */
.macro SAVE_REGS
	mov [rsp + 0], r15
	mov [rsp + 8], r14
	mov [rsp + 16], r13
	mov [rsp + 24], r12
	mov [rsp + 32], rbp
	mov [rsp + 40], rbx
	mov [rsp + 56], r10
	mov [rsp + 64], r9
	mov [rsp + 72], r8
	mov [rsp + 88], rcx
	mov [rsp + 96], rdx
	mov [rsp + 104], rsi
	mov [rsp + 112], rdi
	mov qword ptr [rsp + 120], -1
	mov qword ptr [rsp + 136], 0x33
	mov qword ptr [rsp + 160], 0x2b
.endm

/* call \fn(\arg, regs) with xmm0-7 kept; rbx holds regs across the call */
.macro CALL_C fn, arg
	mov rbx, rsp
	sub rsp, 128
	and rsp, -16
	movdqa [rsp + 0], xmm0
	movdqa [rsp + 16], xmm1
	movdqa [rsp + 32], xmm2
	movdqa [rsp + 48], xmm3
	movdqa [rsp + 64], xmm4
	movdqa [rsp + 80], xmm5
	movdqa [rsp + 96], xmm6
	movdqa [rsp + 112], xmm7
	mov rdi, \arg
	mov rsi, rbx
	call \fn
	movdqa xmm0, [rsp + 0]
	movdqa xmm1, [rsp + 16]
	movdqa xmm2, [rsp + 32]
	movdqa xmm3, [rsp + 48]
	movdqa xmm4, [rsp + 64]
	movdqa xmm5, [rsp + 80]
	movdqa xmm6, [rsp + 96]
	movdqa xmm7, [rsp + 112]
	mov rsp, rbx
.endm

.macro RESTORE_REGS
	mov r15, [rsp + 0]
	mov r14, [rsp + 8]
	mov r13, [rsp + 16]
	mov r12, [rsp + 24]
	mov rbp, [rsp + 32]
	mov rbx, [rsp + 40]
	mov r11, [rsp + 48]
	mov r10, [rsp + 56]
	mov r9, [rsp + 64]
	mov r8, [rsp + 72]
	mov rax, [rsp + 80]
	mov rcx, [rsp + 88]
	mov rdx, [rsp + 96]
	mov rsi, [rsp + 104]
	mov rdi, [rsp + 112]
.endm

/*
 * From a stub:  push r11; movabs r11, SITE; call sa_tramp_enter;
 *               pop r11; <displaced instructions>; jmp back
 * Stack here: [rsp] return to the stub, [rsp+8] the caller's r11,
 * [rsp+16] the probed function's return address.
 */
	.globl sa_tramp_enter
	.hidden sa_tramp_enter
	.type sa_tramp_enter, @function
sa_tramp_enter:
	pushfq
	lea rsp, [rsp - 168]
	SAVE_REGS
	mov [rsp + 80], rax
	mov rax, [rsp + 168]		/* flags */
	mov [rsp + 144], rax
	mov rax, [rsp + 184]		/* the caller's r11 */
	mov [rsp + 48], rax
	lea rax, [rsp + 192]		/* rsp at the function's entry */
	mov [rsp + 152], rax
	CALL_C sa_on_enter, r11
	RESTORE_REGS
	lea rsp, [rsp + 168]
	popfq
	ret
	.size sa_tramp_enter, . - sa_tramp_enter

/*
 * A probed function whose return address was swapped returns here, with
 * its return value in rax/rdx (xmm0/1).  sa_on_return pops the thread's
 * shadow stack and gives back the real return address, which goes into
 * the slot this trampoline's own `ret` takes.
 */
	.globl sa_tramp_return
	.hidden sa_tramp_return
	.type sa_tramp_return, @function
sa_tramp_return:
	lea rsp, [rsp - 8]		/* slot for the real return address */
	pushfq
	lea rsp, [rsp - 168]
	SAVE_REGS
	mov [rsp + 80], rax
	mov [rsp + 48], r11
	mov rax, [rsp + 168]
	mov [rsp + 144], rax
	lea rax, [rsp + 184]		/* rsp after the function's ret */
	mov [rsp + 152], rax
	lea rax, [rip + sa_tramp_return]
	mov [rsp + 128], rax
	CALL_C sa_on_return, rbx
	mov [rsp + 176], rax
	RESTORE_REGS
	lea rsp, [rsp + 168]
	popfq
	ret
	.size sa_tramp_return, . - sa_tramp_return

	.section .note.GNU-stack, "", @progbits
