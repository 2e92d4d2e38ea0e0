# t_ubtf.sh - uprobe arguments by name and `-lv uprobe:BIN:func` from a
# binary's .BTF section when it has no DWARF (host/ubtf.c).  The workload
# is tests/workloads/dwarf_args.c (its header lists the values each call
# passes) built with -g, given BTF by `pahole -J` (package dwarves) and
# stripped of its DWARF by `objcopy --strip-debug`, which keeps .BTF.
#
#   layout       the stripped binary has .BTF and no .debug_info
#   list_*       -lv prints what it prints from DWARF (one function, a glob)
#   scalars, struct_members, by_value_regs, by_value_stack, stack_args,
#   typed, bitfields, enum_key, print_args, cast
#                exact values of known arguments, each the same as
#                t_dwarf.sh's from DWARF (but int grid[2][3], which pahole
#                writes as int[6])
#   err_no_param a name the function lacks lists its arguments
#
# Sourced by run.sh (lib.sh gives $SONDE, $B, pass/fail/skip, expect_eq).

if ! command -v pahole > /dev/null; then
	skip ubtf:all "pahole (package dwarves) is not installed: make deps installs it"
else

U=$B/ubtf_args
gcc -O1 -g -o "$U.g" "$top/tests/workloads/dwarf_args.c"
pahole -J "$U.g" 2> /dev/null
objcopy --strip-debug "$U.g" "$U"
out=$(readelf -S "$U" | grep -oE '\.(BTF|debug_info)\b' | sort -u | tr '\n' ' ')
expect_eq ubtf:layout ".BTF " "$out"

out=$("$SONDE" -lv "uprobe:$U:visit" 2>&1)
expect_eq ubtf:list_func "uprobe:$U:visit
    struct node* n
    const char* label
    int depth" "$out"
out=$("$SONDE" -lv "uprobe:$U:[pt]*" 2>&1)
expect_eq ubtf:list_glob "uprobe:$U:paint
    enum color c
    _Bool on
uprobe:$U:pair_sum
    struct pair p
    int k
uprobe:$U:typed
    u32_t id
    union word w
    <unknown type>* vp
    <unknown type>* cb
    char* const s" "$out"

out=$("$SONDE" --dry-run -e 'uprobe:'$U':visit { print(args.nope); }' 2>&1; echo "rc=$?")
expect_match ubtf:err_no_param "error: uprobe:$U:visit has no argument 'nope' \(its arguments: n, label, depth\).*rc=1" "$(echo $out)"

if need_root ubtf:bpf; then

out=$("$SONDE" -q -c "$U 3" -e 'uprobe:'$U':scalars { printf("%d %d %d %lld %u\n", args.a, args.b, args.c, args.d, args.e); }' 2>&1)
expect_eq ubtf:scalars '-1 200 -300 1099511627776 4000000000
-2 201 -300 1099511627777 4000000000
-3 202 -300 1099511627778 4000000000' "$out"

out=$("$SONDE" -q -c "$U 2" -e 'uprobe:'$U':visit {
	printf("%d %s %d %d %d %s %d %s %d\n", args.n.id, args.n.name, args.n.pos.x, args.n.pos.y,
	       args.n->vals[2], args.n.next.name, args.n.next.id, str(args.label), args.depth);
	$n = args.n; printf("%d %d\n", $n->next->pos.x, $n->next->next == 0); print(*args.n->next); }' 2>&1)
expect_eq ubtf:struct_members '0 node 10 -20 3 next 100 even 3
1 1
{ .id = 100, .name = next, .pos = { .x = 1, .y = 2 }, .vals = [7,8,9], .kind = 2, .next = 0 }
1 node 11 -20 3 next 100 odd 3
1 1
{ .id = 100, .name = next, .pos = { .x = 1, .y = 2 }, .vals = [7,8,9], .kind = 2, .next = 0 }' "$out"

out=$("$SONDE" -q -c "$U 3" -e 'uprobe:'$U':pair_sum { printf("%d %d %d\n", args.p.a, args.p.b, args.k); }' 2>&1)
expect_eq ubtf:by_value_regs $'0 0 7\n1 2 7\n2 4 7' "$out"
out=$("$SONDE" -q -c "$U 2" -e 'uprobe:'$U':big_sum { printf("%d %d %d\n", args.k, args.b.v[0], args.b.v[2]); }' 2>&1)
expect_eq ubtf:by_value_stack $'5 0 2\n5 1 3' "$out"
out=$("$SONDE" -q -c "$U 2" -e 'uprobe:'$U':eight { print((args.a0, args.a5, args.a6, args.a7)); }' 2>&1)
expect_eq ubtf:stack_args $'(0, 50, 60, 70)\n(1, 51, 61, 71)' "$out"
out=$("$SONDE" -q -c "$U 1" -e 'uprobe:'$U':typed { printf("%x %d %d %d %s\n", args.id, args.w.i, args.w.c[0], *args.vp, str(args.s)); }' 2>&1)
expect_eq ubtf:typed 'abc 65 65 9 const' "$out"
# pahole writes int grid[2][3] as int[6] (BTF arrays have one dimension
# in its encoding), so grid[1][2] is grid[5] here
out=$("$SONDE" -q -c "$U 1" -e 'uprobe:'$U':flagged { printf("%d %d %d %x %d %c\n", args.f.ready, args.f.mode, args.f.level, args.f.as_int, args.f.grid[5], args.f.bytes[0]); print(*args.f); }' 2>&1)
expect_eq ubtf:bitfields '1 5 -3 41424344 6 D
{ .ready = 1, .mode = 5, .level = -3, .as_int = 1094861636, .bytes = DCBA, .grid = [1,2,3,4,5,6] }' "$out"
out=$("$SONDE" -q -c "$U 5" -e 'uprobe:'$U':paint { @[args.c] = count(); }' 2>&1)
expect_eq ubtf:enum_key $'\n\n@[BLUE]: 1\n@[GREEN]: 2\n@[RED]: 2' "$out"
out=$("$SONDE" -q -c "$U 2" -e 'uprobe:'$U':scalars { print(args); } uprobe:'$U':pair_sum { print(args); }' 2>&1)
expect_eq ubtf:print_args '{ .a = -1, .b = 200, .c = -300, .d = 1099511627776, .e = 4000000000 }
{ .p = { .a = 0, .b = 0 }, .k = 7 }
{ .a = -2, .b = 201, .c = -300, .d = 1099511627777, .e = 4000000000 }
{ .p = { .a = 1, .b = 2 }, .k = 7 }' "$out"
out=$("$SONDE" -q -c "$U 2" -e 'uprobe:'$U':visit { printf("%d %d\n", ((struct node *)arg0)->pos.x, sizeof(struct node)); }' 2>&1)
expect_eq ubtf:cast $'10 48\n11 48' "$out"

fi	# need_root
fi	# pahole
