# t_dwarf.sh - uprobe arguments by name from DWARF (issue #21 item 15), on
# tests/workloads/dwarf_args.c built with -g (its header lists the values
# each call passes) and the same source built without -g.  Where bpftrace
# 0.17 reads an argument right, tests/diff/cases/03*-uprobe-dwarf-* check
# sonde against it; these are the rest, and the errors:
#
#   list_*          -lv uprobe:BIN:func prints the parameters (a glob too; not
#                   under a uretprobe, as bpftrace);
#                   without debug information only the names
#   scalars         integers of each width and sign, extended as C does
#   struct_*        members through a struct pointer (nested struct, array,
#                   char array, the next node's members), `.` dereferencing
#                   as `->` does, through a variable, print() of the struct
#   abi_sse         mixed(double f, int n): n is in rdi (the double takes
#                   xmm0), not in rsi where bpftrace 0.17 reads it
#   by_value_regs   pair_sum(struct pair p, int k): p in rdi:rsi, k in rdx
#   by_value_stack  big_sum(int k, struct big b): the 24-byte b on the stack
#   stack_args      eight(a0..a7): a6 and a7 on the stack
#   typed           a typedef, a union by value, volatile int *, char *const
#   bitfields       bitfields, an anonymous union's members, int grid[2][3]
#                   (bpftrace 0.17 stops on the anonymous union)
#   wildcard        *_sum: one program per function, each reads its own k
#   enum_key        an enum argument as a map key prints its enumerator
#   print_args      print(args) and args as a map key: every argument by name
#   cast            (struct node *)arg0 and sizeof(struct node) from DWARF; a
#                   struct the script defines wins over the binary's
#   err_*           no debug information (the binary and -g named), a name
#                   the function lacks (its arguments listed), a double, a
#                   uretprobe, a function the debug information lacks, an
#                   offset into the function
#
# Sourced by run.sh (lib.sh gives $SONDE, $B, pass/fail/skip, expect_eq).

build_workload dwarf_args
gcc -O1 -o "$B/dwarf_nodebug" "$top/tests/workloads/dwarf_args.c"
D=$B/dwarf_args

# -- -lv: parameters with bpftrace's type names ------------------------------------
out=$("$SONDE" -lv "uprobe:$D:visit" 2>&1)
expect_eq dwarf:list_func "uprobe:$D:visit
    struct node* n
    const char* label
    int depth" "$out"
out=$("$SONDE" -lv "uprobe:$D:[pt]*" 2>&1)
expect_eq dwarf:list_glob "uprobe:$D:paint
    enum color c
    _Bool on
uprobe:$D:pair_sum
    struct pair p
    int k
uprobe:$D:typed
    u32_t id
    union word w
    <unknown type>* vp
    <unknown type>* cb
    char* const s" "$out"
out=$("$SONDE" -lv "uprobe:$B/dwarf_nodebug:[pv]*" 2>&1)
expect_eq dwarf:list_nodebug "uprobe:$B/dwarf_nodebug:paint
uprobe:$B/dwarf_nodebug:pair_sum
uprobe:$B/dwarf_nodebug:visit" "$out"

if need_root dwarf:bpf; then

out=$("$SONDE" -q -c "$D 3" -e 'uprobe:'$D':scalars { printf("%d %d %d %lld %u\n", args.a, args.b, args.c, args.d, args.e); }' 2>&1)
expect_eq dwarf:scalars '-1 200 -300 1099511627776 4000000000
-2 201 -300 1099511627777 4000000000
-3 202 -300 1099511627778 4000000000' "$out"

out=$("$SONDE" -q -c "$D 2" -e 'uprobe:'$D':visit {
	printf("%d %s %d %d %d %s %d %s %d\n", args.n.id, args.n.name, args.n.pos.x, args.n.pos.y,
	       args.n->vals[2], args.n.next.name, args.n.next.id, str(args.label), args.depth);
	$n = args.n; printf("%d %d\n", $n->next->pos.x, $n->next->next == 0); }' 2>&1)
expect_eq dwarf:struct_members '0 node 10 -20 3 next 100 even 3
1 1
1 node 11 -20 3 next 100 odd 3
1 1' "$out"
out=$("$SONDE" -q -c "$D 1" -e 'uprobe:'$D':visit { print(*args.n->next); }' 2>&1)
expect_eq dwarf:struct_print '{ .id = 100, .name = next, .pos = { .x = 1, .y = 2 }, .vals = [7,8,9], .kind = 2, .next = 0 }' "$out"

out=$("$SONDE" -q -c "$D 3" -e 'uprobe:'$D':mixed { printf("%d %d\n", args.n, args.opaque != 0); }' 2>&1)
expect_eq dwarf:abi_sse $'0 1\n1 1\n2 1' "$out"

out=$("$SONDE" -q -c "$D 3" -e 'uprobe:'$D':pair_sum { printf("%d %d %d\n", args.p.a, args.p.b, args.k); print(args.p); }' 2>&1)
expect_eq dwarf:by_value_regs '0 0 7
{ .a = 0, .b = 0 }
1 2 7
{ .a = 1, .b = 2 }
2 4 7
{ .a = 2, .b = 4 }' "$out"

out=$("$SONDE" -q -c "$D 2" -e 'uprobe:'$D':big_sum { printf("%d %d %d\n", args.k, args.b.v[0], args.b.v[2]); print(args.b); }' 2>&1)
expect_eq dwarf:by_value_stack '5 0 2
{ .v = [0,1,2] }
5 1 3
{ .v = [1,2,3] }' "$out"

out=$("$SONDE" -q -c "$D 2" -e 'uprobe:'$D':eight { print((args.a0, args.a5, args.a6, args.a7)); }' 2>&1)
expect_eq dwarf:stack_args $'(0, 50, 60, 70)\n(1, 51, 61, 71)' "$out"

out=$("$SONDE" -q -c "$D 1" -e 'uprobe:'$D':typed { printf("%x %d %d %d %s\n", args.id, args.w.i, args.w.c[0], *args.vp, str(args.s)); }' 2>&1)
expect_eq dwarf:typed 'abc 65 65 9 const' "$out"

out=$("$SONDE" -q -c "$D 1" -e 'uprobe:'$D':flagged { printf("%d %d %d %x %d %c\n", args.f.ready, args.f.mode, args.f.level, args.f.as_int, args.f.grid[1][2], args.f.bytes[0]); print(*args.f); }' 2>&1)
expect_eq dwarf:bitfields '1 5 -3 41424344 6 D
{ .ready = 1, .mode = 5, .level = -3, .as_int = 1094861636, .bytes = DCBA, .grid = [[1,2,3],[4,5,6]] }' "$out"

out=$("$SONDE" -q -c "$D 3" -e 'uprobe:'$D':*_sum { @[func] = sum(args.k); }' 2>&1)
expect_eq dwarf:wildcard $'\n\n@[big_sum]: 15\n@[pair_sum]: 21' "$out"

out=$("$SONDE" -q -c "$D 5" -e 'uprobe:'$D':paint { @[args.c] = count(); }' 2>&1)
expect_eq dwarf:enum_key $'\n\n@[BLUE]: 1\n@[GREEN]: 2\n@[RED]: 2' "$out"

fi	# need_root

# -- errors: located, naming what is missing (sema: no BPF needed) ------------------
out=$("$SONDE" --dry-run -e 'uprobe:'$B/dwarf_nodebug':visit { print(args.n->id); }' 2>&1; echo "rc=$?")
expect_match dwarf:err_nodebug "^stdin:1:[0-9]+: error: uprobe:$B/dwarf_nodebug:visit: arguments by name need debug information: $B/dwarf_nodebug has no DWARF debug information: build it with -g, or install its debug info .*rc=1" "$(echo $out)"
out=$("$SONDE" --dry-run -e 'uprobe:'$D':visit { print(args.nope); }' 2>&1; echo "rc=$?")
expect_match dwarf:err_no_param "error: uprobe:$D:visit has no argument 'nope' \(its arguments: n, label, depth\).*rc=1" "$(echo $out)"
out=$("$SONDE" --dry-run -e 'uprobe:'$D':mixed { print(args.f); }' 2>&1; echo "rc=$?")
expect_match dwarf:err_double "error: uprobe:$D:mixed: argument 'f' is a floating-point argument, passed in an SSE register, which a uprobe cannot read.*rc=1" "$(echo $out)"
out=$("$SONDE" --dry-run -e 'uretprobe:'$D':visit { print(args.n); }' 2>&1; echo "rc=$?")
expect_match dwarf:err_uretprobe "error: args.n: uretprobe:$D:visit has no arguments by name.*rc=1" "$(echo $out)"
out=$("$SONDE" --dry-run -e 'uprobe:'$D':_start { print(args.n); }' 2>&1; echo "rc=$?")
expect_match dwarf:err_no_func "error: uprobe:$D:_start: the debug information of $D does not describe function '_start'.*rc=1" "$(echo $out)"

# -- casts to the binary's structs; the script's own take precedence ---------------
if need_root dwarf:cast; then
out=$("$SONDE" -q -c "$D 2" -e 'struct pair { long first; char tag[8]; }
uprobe:'$D':visit { $p = (struct pair *)arg0; printf("%d %d %s %d\n", ((struct node *)arg0)->pos.x, sizeof(struct node), $p->tag, ((union word *)&args.n->vals[1])->c[0]); }' 2>&1)
expect_eq dwarf:cast $'10 48 node 2\n11 48 node 2' "$out"
fi

# -- -lv of a uretprobe: no arguments under it, as bpftrace lists it ---------------
out=$("$SONDE" -lv "uretprobe:$D:visit" 2>&1)
expect_eq dwarf:list_uretprobe "uretprobe:$D:visit" "$out"
out=$("$SONDE" --dry-run -e 'uprobe:'$D':visit+4 { print(args.n); }' 2>&1; echo "rc=$?")
expect_match dwarf:err_offset "error: args.n in uprobe:$D:visit\+4: arguments by name are read at a function's entry, not at an offset or an address.*rc=1" "$(echo $out)"

# -- args alone: every argument, as the newest bpftrace's print(args) -----------------
if need_root dwarf:print_args; then
out=$("$SONDE" -q -c "$D 2" -e 'uprobe:'$D':scalars { print(args); } uprobe:'$D':pair_sum { print(args); }
uprobe:'$D':big_sum { print(args); }' 2>&1)
expect_eq dwarf:print_args '{ .a = -1, .b = 200, .c = -300, .d = 1099511627776, .e = 4000000000 }
{ .p = { .a = 0, .b = 0 }, .k = 7 }
{ .k = 5, .b = { .v = [0,1,2] } }
{ .a = -2, .b = 201, .c = -300, .d = 1099511627777, .e = 4000000000 }
{ .p = { .a = 1, .b = 2 }, .k = 7 }
{ .k = 5, .b = { .v = [1,2,3] } }' "$out"
# pointers in args print in hex, as the newest bpftrace prints them, in a
# map key too (0.17 has no print(args)); a C struct read through one keeps
# 0.17's decimal (next is NULL: 0); in JSON the pointers are numbers (a
# user address has fewer than 53 significant bits)
out=$("$SONDE" -q -c "$D 1" -e 'uprobe:'$D':visit { print(args); print(*args.n->next); @[args] = count(); }' 2>&1)
expect_match dwarf:print_args_pointers $'^\\{ \\.n = 0x[0-9a-f]+, \\.label = 0x[0-9a-f]+, \\.depth = 3 \\}\n\\{ \\.id = 100, \\.name = next, \\.pos = \\{ \\.x = 1, \\.y = 2 \\}, \\.vals = \\[7,8,9\\], \\.kind = 2, \\.next = 0 \\}\n\n\n@\\[\\{ \\.n = 0x[0-9a-f]+, \\.label = 0x[0-9a-f]+, \\.depth = 3 \\}\\]: 1$' "$out"
out=$("$SONDE" -q -f json -c "$D 1" -e 'uprobe:'$D':visit { print(args); }' 2>&1)
expect_match dwarf:print_args_pointers_json '^\{"type": "value", "data": \{"n": [0-9]+, "label": [0-9]+, "depth": 3\}\}$' "$out"
out=$("$SONDE" -q -c "$D 3" -e 'uprobe:'$D':paint { @[args] = count(); }' 2>&1)
expect_eq dwarf:args_map_key $'\n\n@[{ .c = 0, .on = 0 }]: 1\n@[{ .c = 1, .on = 1 }]: 1\n@[{ .c = 2, .on = 0 }]: 1' "$out"
out=$("$SONDE" -q -f json -c "$D 2" -e 'uprobe:'$D':paint { @[args] = count(); }' 2>&1)
expect_eq dwarf:args_map_key_json '{"type": "map", "data": {"@": {"{.c=0,.on=0}": 1, "{.c=1,.on=1}": 1}}}' "$out"
fi
out=$("$SONDE" --dry-run -e 'uprobe:'$D':mixed { print(args); }' 2>&1; echo "rc=$?")
expect_match dwarf:err_print_args_double "error: args in uprobe:$D:mixed: argument 'f' is a floating-point argument.*name the others \(args.NAME\).*rc=1" "$(echo $out)"
