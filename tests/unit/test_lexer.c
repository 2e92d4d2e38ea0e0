/*
 * test_lexer.c - the scanner, through lex_dump(): token classes and values,
 * locations, the three modes (attach points, predicates, bodies), the
 * small preprocessor, and the exact text of every lexical error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/arena.h"
#include "common/diag.h"
#include "lexer/lexer.h"

/* The token dump of `src`, and in *errs (if not NULL) what diag printed. */
static char *lex(const char *src, bool with_loc, char **errs)
{
	char *msgs = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&msgs, &size);
	assert_non_null(out);
	struct arena *a = arena_new();
	struct diag d;
	diag_init(&d, "test.bt", src, out);
	char *toks = strdup(lex_dump(a, &d, src, with_loc));
	arena_free(a);
	fclose(out);
	if (errs)
		*errs = msgs;
	else
		free(msgs);
	return toks;
}

static void check_tokens(const char *src, const char *want)
{
	char *errs;
	char *got = lex(src, false, &errs);
	assert_string_equal(got, want);
	assert_string_equal(errs, "");
	free(got);
	free(errs);
}

static void check_locs(const char *src, const char *want)
{
	char *got = lex(src, true, NULL);
	assert_string_equal(got, want);
	free(got);
}

/* A lexical error: the dump ends in "error" and diag printed `want`. */
static void check_error(const char *src, const char *want_toks,
			const char *want_msg)
{
	char *errs;
	char *got = lex(src, false, &errs);
	assert_string_equal(got, want_toks);
	assert_string_equal(errs, want_msg);
	free(got);
	free(errs);
}

static void test_simple_probe(void **state)
{
	check_tokens("BEGIN { printf(\"hi\\n\"); exit(); }",
		     "attach:BEGIN { ident:printf ( str:\"hi\\n\" ) ; "
		     "ident:exit ( ) ; }");
	check_tokens("", "");
	check_tokens("  \n\t \r\n", "");
}

static void test_locations(void **state)
{
	check_locs("BEGIN { $x = 10; }",
		   "attach:BEGIN@1:1-6 {@1:7-8 var:$x@1:9-11 =@1:12-13 "
		   "int:10@1:14-16 ;@1:16-17 }@1:18-19");
	check_locs("a,\n  b {\n\t@m[1] }",
		   "attach:a@1:1-2 ,@1:2-3 attach:b@2:3-4 {@2:5-6 "
		   "map:@m@3:2-4 [@3:4-5 int:1@3:5-6 ]@3:6-7 }@3:8-9");
	/* a comment spanning lines moves the position on */
	check_locs("/* a\nbc */ END{}",
		   "attach:END@2:7-10 {@2:10-11 }@2:11-12");
}

static void test_attach_points(void **state)
{
	check_tokens("uprobe:/usr/lib/x86_64-linux-gnu/libc.so.6:malloc { }",
		     "attach:uprobe:/usr/lib/x86_64-linux-gnu/libc.so.6:malloc { }");
	check_tokens("t:syscalls:sys_enter_* { }",
		     "attach:t:syscalls:sys_enter_* { }");
	check_tokens("interval:s:1{}", "attach:interval:s:1 { }");
	check_tokens("kprobe:f+0x10,kretprobe:vfs_*\n,\nsoftware:cpu-clock:1 {}",
		     "attach:kprobe:f+0x10 , attach:kretprobe:vfs_* , "
		     "attach:software:cpu-clock:1 { }");
	check_tokens("usdt:/bin/x:prov:probe { }",
		     "attach:usdt:/bin/x:prov:probe { }");
	check_tokens("uprobe:$1:main { }", "attach:uprobe:$1:main { }");
	/* quoted parts keep spaces, commas and braces, lose the quotes */
	check_tokens("uprobe:\"/opt/my app/a,b{}\":f { }",
		     "attach:uprobe:/opt/my app/a,b{}:f { }");
	check_locs("uprobe:\"/a b\":f {",
		   "attach:uprobe:/a b:f@1:1-16 {@1:17-18");
	/* several probes, braces nest, struct definitions switch mode */
	check_tokens("BEGIN { { } } END { } struct s { int a; }; i:s:1 { }",
		     "attach:BEGIN { { } } attach:END { } struct ident:s { "
		     "type:int ident:a ; } ; attach:i:s:1 { }");
	/* "struct" glued to more text is just an attach point */
	check_tokens("structx { }", "attach:structx { }");
}

static void test_predicates(void **state)
{
	check_tokens("BEGIN /pid == 1/ { }",
		     "attach:BEGIN / ident:pid == int:1 endpred { }");
	/* before the first ':' a '/' ends the attach point, as in bpftrace */
	check_tokens("BEGIN/pid/{ }", "attach:BEGIN / ident:pid endpred { }");
	/* after it, '/' belongs to the path */
	check_tokens("u:/bin/sh:f /1/ {}",
		     "attach:u:/bin/sh:f / int:1 endpred { }");
	/* only the '/' before '{' closes: the others divide */
	check_tokens("a / $x / 2 / {}",
		     "attach:a / var:$x / int:2 endpred { }");
	check_tokens("a /1/\n // c\n /* d */ {}",
		     "attach:a / int:1 endpred { }");
	/* a predicate never closed: its '{' is a plain brace */
	check_tokens("a /1 { }", "attach:a / int:1 { }");
	check_tokens("a /\"x/ {\"/ {}",
		     "attach:a / str:\"x/ {\" endpred { }");
}

static void test_operators(void **state)
{
	check_tokens("a{ || && == != <= >= << >> ++ -- -> }",
		     "attach:a { || && == != <= >= << >> ++ -- -> }");
	check_tokens("a{ += -= *= /= %= &= |= ^= <<= >>= = }",
		     "attach:a { += -= *= /= %= &= |= ^= <<= >>= = }");
	check_tokens("a{ + - * / % & | ^ ! ~ < > ? : . , ( ) [ ] ; }",
		     "attach:a { + - * / % & | ^ ! ~ < > ? : . , ( ) [ ] ; }");
	check_tokens("a{$x+++$y}", "attach:a { var:$x ++ + var:$y }");
	check_tokens("a{1<<=2>>3}", "attach:a { int:1 <<= int:2 >> int:3 }");
}

static void test_integers(void **state)
{
	check_tokens("a{ 0 42 0x1F 0XfF 017 1_000_000 0xdead_beef 1e6 2E3 0e5 }",
		     "attach:a { int:0 int:42 int:31 int:255 int:15 "
		     "int:1000000 int:3735928559 int:1000000 int:2000 int:0 }");
	check_tokens("a{ 18446744073709551615 0xffffffffffffffff "
		     "01777777777777777777777 1e19 }",
		     "attach:a { int:18446744073709551615 "
		     "int:18446744073709551615 int:18446744073709551615 "
		     "int:10000000000000000000 }");
}

/* newer bpftrace: duration suffixes are nanoseconds, C's suffixes nothing */
static void test_durations(void **state)
{
	check_tokens("a{ 1s 100ms 5us 7ns 2m 1h 1d 0s 1_000ms 123UL 7u 9LL }",
		     "attach:a { int:1000000000 int:100000000 int:5000 int:7 int:120000000000 "
		     "int:3600000000000 int:86400000000000 int:0 int:1000000000 int:123 int:7 int:9 }");
	(void)state;
}

static void test_integer_errors(void **state)
{
	check_error("a{ 18446744073709551616 }", "attach:a { error",
		    "test.bt:1:4: error: integer literal "
		    "'18446744073709551616' is out of range\n"
		    "a{ 18446744073709551616 }\n"
		    "   ^~~~~~~~~~~~~~~~~~~~\n");
	check_error("a{ 0x10000000000000000 }", "attach:a { error",
		    "test.bt:1:4: error: integer literal "
		    "'0x10000000000000000' is out of range\n"
		    "a{ 0x10000000000000000 }\n"
		    "   ^~~~~~~~~~~~~~~~~~~\n");
	check_error("a{ 1e20 }", "attach:a { error",
		    "test.bt:1:4: error: integer literal '1e20' is out of range\n"
		    "a{ 1e20 }\n"
		    "   ^~~~\n");
	check_error("a{ 08 }", "attach:a { error",
		    "test.bt:1:4: error: invalid integer literal '08'\n"
		    "a{ 08 }\n"
		    "   ^~\n");
	const char *bad[] = { "1_", "1__0", "0x", "0x_1", "1e", "1e+3", "10xs", "010ms", "1sec",
			      "0xfg", "5e" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char src[64];
		snprintf(src, sizeof(src), "a{%s}", bad[i]);
		char *errs;
		char *got = lex(src, false, &errs);
		assert_string_equal(got, "attach:a { error");
		assert_non_null(strstr(errs, "error: invalid integer literal"));
		free(got);
		free(errs);
	}
}

static void test_strings(void **state)
{
	check_tokens("a{ \"\" \"plain\" \"t\\tn\\nr\\r\\\\q\\\"s\\'\" }",
		     "attach:a { str:\"\" str:\"plain\" "
		     "str:\"t\\tn\\nr\\r\\\\q\\\"s'\" }");
	/* octal and hex escapes, and a NUL inside */
	check_tokens("a{ \"\\101\\x42\\x4a\\0z\\7\\1234\" }",
		     "attach:a { str:\"ABJ\\x00z\\x07S4\" }");
	check_tokens("a{ \"/* not a comment */ // nor this\" }",
		     "attach:a { str:\"/* not a comment */ // nor this\" }");
}

static void test_string_errors(void **state)
{
	check_error("BEGIN { printf(\"abc); }", "attach:BEGIN { ident:printf ( error",
		    "test.bt:1:16: error: unterminated string literal\n"
		    "BEGIN { printf(\"abc); }\n"
		    "               ^~~~~~~~\n");
	check_error("a { \"abc\ndef\" }", "attach:a { error",
		    "test.bt:1:5: error: unterminated string literal\n"
		    "a { \"abc\n"
		    "    ^~~~\n");
	check_error("a { \"x\\q\" }", "attach:a { error",
		    "test.bt:1:7: error: invalid escape sequence '\\q'\n"
		    "a { \"x\\q\" }\n"
		    "      ^~\n");
	check_error("a { \"\\x\" }", "attach:a { error",
		    "test.bt:1:6: error: invalid escape sequence '\\x'\n"
		    "a { \"\\x\" }\n"
		    "     ^~\n");
	check_error("a { \"\\400\" }", "attach:a { error",
		    "test.bt:1:6: error: octal escape sequence '\\400' is out of range\n"
		    "a { \"\\400\" }\n"
		    "     ^~~~\n");
	check_error("uprobe:\"/bin/x:f { }", "error",
		    "test.bt:1:8: error: unterminated string literal\n"
		    "uprobe:\"/bin/x:f { }\n"
		    "       ^~~~~~~~~~~~~\n");
	check_error("a:\"b\":\"c d {", "error",
		    "test.bt:1:7: error: unterminated string literal\n"
		    "a:\"b\":\"c d {\n"
		    "      ^~~~~~\n");
}

static void test_chars(void **state)
{
	check_tokens("a{ 'a' '\\n' '\\'' '\\0' '\\x41' '\"' }",
		     "attach:a { char:97 char:10 char:39 char:0 char:65 char:34 }");
	check_error("a{ 'ab' }", "attach:a { error",
		    "test.bt:1:4: error: character literal 'ab' must hold "
		    "exactly one character\n"
		    "a{ 'ab' }\n"
		    "   ^~~~\n");
	check_error("a{ '' }", "attach:a { error",
		    "test.bt:1:4: error: character literal '' must hold "
		    "exactly one character\n"
		    "a{ '' }\n"
		    "   ^~\n");
	check_error("a{ 'x }", "attach:a { error",
		    "test.bt:1:4: error: unterminated character literal\n"
		    "a{ 'x }\n"
		    "   ^~~~\n");
}

static void test_names(void **state)
{
	check_tokens("a{ $x $_y1 @ @m @_a9 $1 $42 $# pid arg0 args comm }",
		     "attach:a { var:$x var:$_y1 map:@ map:@m map:@_a9 pos:$1 "
		     "pos:$42 pos:$# ident:pid ident:arg0 ident:args ident:comm }");
	check_tokens("a{ if else while unroll return break continue sizeof struct }",
		     "attach:a { if else while unroll return break continue "
		     "sizeof struct }");
	check_tokens("a{ int8 int16 int32 int64 uint8 uint16 uint32 uint64 }",
		     "attach:a { type:int8 type:int16 type:int32 type:int64 "
		     "type:uint8 type:uint16 type:uint32 type:uint64 }");
	check_tokens("a{ char short int long unsigned signed void bool const volatile }",
		     "attach:a { type:char type:short type:int type:long "
		     "type:unsigned type:signed type:void type:bool qual:const "
		     "qual:volatile }");
	/* a name followed by "*"s and ")" can only be a typedef in a cast */
	check_tokens("a{ (u32 *) (pid_t**) (int *) (x) x * y }",
		     "attach:a { ( typedef:u32 * ) ( typedef:pid_t * * ) "
		     "( type:int * ) ( ident:x ) ident:x * ident:y }");
	check_tokens("a{ iff int9 structs }",
		     "attach:a { ident:iff ident:int9 ident:structs }");
	check_error("a{ $0 }", "attach:a { error",
		    "test.bt:1:4: error: invalid positional parameter '$0' "
		    "(they start at $1)\n"
		    "a{ $0 }\n"
		    "   ^~\n");
	check_error("a{ $99999999999 }", "attach:a { error",
		    "test.bt:1:4: error: positional parameter '$99999999999' "
		    "is out of range\n"
		    "a{ $99999999999 }\n"
		    "   ^~~~~~~~~~~~\n");
}

static void test_comments(void **state)
{
	check_tokens("// c\nBEGIN /* x\ny */ { // z\n 1 /**/ /***/ /* * / */ }",
		     "attach:BEGIN { int:1 }");
	check_tokens("a{ 1 //}\n }", "attach:a { int:1 }");
	check_error("BEGIN { /* never", "attach:BEGIN { error",
		    "test.bt:1:9: error: unterminated comment\n"
		    "BEGIN { /* never\n"
		    "        ^~\n");
	check_error("/* x\n\n", "error",
		    "test.bt:1:1: error: unterminated comment\n"
		    "/* x\n"
		    "^~\n");
}

static void test_invalid_chars(void **state)
{
	check_error("BEGIN { $x = 1 # 2 }", "attach:BEGIN { var:$x = int:1 error",
		    "test.bt:1:16: error: invalid character '#'\n"
		    "BEGIN { $x = 1 # 2 }\n"
		    "               ^\n");
	check_error("a{ ` }", "attach:a { error",
		    "test.bt:1:4: error: invalid character '`'\n"
		    "a{ ` }\n"
		    "   ^\n");
	check_error("a{ \x01 }", "attach:a { error",
		    "test.bt:1:4: error: invalid character '\\x01'\n"
		    "a{ \x01 }\n"
		    "   ^\n");
	check_error("a{ \xc3\xa9 }", "attach:a { error",
		    "test.bt:1:4: error: invalid character '\\xc3'\n"
		    "a{ \xc3\xa9 }\n"
		    "   ^\n");
	check_error("a{ $ }", "attach:a { error",
		    "test.bt:1:4: error: invalid character '$'\n"
		    "a{ $ }\n"
		    "   ^\n");
	check_error("a{ \\ }", "attach:a { error",
		    "test.bt:1:4: error: invalid character '\\'\n"
		    "a{ \\ }\n"
		    "   ^\n");
	/* at top level too */
	check_error("a:b { } #", "attach:a:b { } error",
		    "test.bt:1:9: error: invalid character '#'\n"
		    "a:b { } #\n"
		    "        ^\n");
	/* a tab before the column is copied into the underline */
	check_error("a{\t`}", "attach:a { error",
		    "test.bt:1:4: error: invalid character '`'\n"
		    "a{\t`}\n"
		    "  \t^\n");
}

static void test_crlf(void **state)
{
	check_locs("a\r\n{\r\n1\r\n}\r\n",
		   "attach:a@1:1-2 {@2:1-2 int:1@3:1-2 }@4:1-2");
}

static void test_define(void **state)
{
	check_tokens("#define N 10\n#define S \"s\"\n#define E (N * 2) // c\n"
		     "a { N; S; E; M }",
		     "attach:a { int:10 ; str:\"s\" ; ( int:10 * int:2 ) ; ident:M }");
	/* expanded tokens sit at the use */
	check_locs("#define N 1 + 2\na { N }",
		   "attach:a@2:1-2 {@2:3-4 int:1@2:5-6 +@2:5-6 int:2@2:5-6 }@2:7-8");
	/* empty value; redefinition; #undef; a name used in its own value */
	check_tokens("#define NOTHING\n#define V 1\n#define V 2\n"
		     "#define R R + 1\na { NOTHING V R }\n#undef V\nb { V }",
		     "attach:a { int:2 ident:R + int:1 } attach:b { ident:V }");
	/* predicates expand too; attach points do not */
	check_tokens("#define P 7\nP /P/ { }", "attach:P / int:7 endpred { }");
	check_tokens("   #  define  Q  3\na{Q}", "attach:a { int:3 }");
}

static void test_define_errors(void **state)
{
	check_error("#define F(x) x\n", "error",
		    "test.bt:1:9: error: function-like macro 'F' is not supported\n"
		    "#define F(x) x\n"
		    "        ^~\n");
	check_error("#define\n", "error",
		    "test.bt:1:1: error: '#define' needs a macro name\n"
		    "#define\n"
		    "^~~~~~~\n");
	check_error("#define B {\n", "error",
		    "test.bt:1:11: error: '#define B': braces are not supported "
		    "in a macro value\n"
		    "#define B {\n"
		    "          ^\n");
	/* an error inside the value is located in the #define line */
	check_error("#define S \"abc\n", "error",
		    "test.bt:1:11: error: unterminated string literal\n"
		    "#define S \"abc\n"
		    "          ^~~~\n");
	/* each step doubles: capped */
	char bomb[1024], *b = bomb;
	b += sprintf(b, "#define A0 x x\n");
	for (int i = 1; i < 14; i++)
		b += sprintf(b, "#define A%d A%d A%d\n", i, i - 1, i - 1);
	char *errs;
	char *got = lex(bomb, false, &errs);
	assert_string_equal(got, "error");
	assert_non_null(strstr(errs, "test.bt:13:13: error: '#define A12': "
				     "the value expands to more than 4096 tokens\n"));
	free(got);
	free(errs);
	/* and so is the total of all expansions */
	char *many = malloc(1 << 16);
	b = many + sprintf(many, "#define T");
	for (int i = 0; i < 4000; i++)
		b += sprintf(b, " 1");
	b += sprintf(b, "\na {");
	for (int i = 0; i < 100; i++)
		b += sprintf(b, " T");
	strcpy(b, " }");
	got = lex(many, false, &errs);
	assert_non_null(strstr(errs, "error: macro 'T': the program's macros "
				     "expand to more than 262144 tokens"));
	free(got);
	free(errs);
	free(many);
	check_error("#define H # x\n", "error",
		    "test.bt:1:11: error: invalid character '#'\n"
		    "#define H # x\n"
		    "          ^\n");
}

static void test_directives(void **state)
{
	check_tokens("#!/usr/bin/env bpftrace\n#include <linux/sched.h>\n"
		     "#include \"linux/x.h\"\n#pragma once\n#\nBEGIN{}",
		     "attach:BEGIN { }");
	check_tokens("#ifndef BPFTRACE_HAVE_BTF\n#include <a.h>\nX\n#else\n"
		     "Y\n#endif\n", "attach:Y");
	check_tokens("#ifdef NOPE\nA\n#ifdef X\nB\n#else\nC\n#endif\n#else\n"
		     "D\n#if 1\nE\n#else\nF\n#endif\n#endif\n",
		     "attach:D attach:E");
	check_tokens("#define ON 1\n#if 0\nA {\n#endif\n#if ON\nB\n#endif\n"
		     "#if defined(ON)\nC\n#endif\n#if !defined ON\nD\n#endif\n"
		     "#if OFF\nE\n#endif\n",
		     "attach:B attach:C");
	/* constants of well-known headers */
	check_tokens("#include <linux/sched.h>\n#include \"net/tcp_states.h\"\n"
		     "#include <sys/socket.h>\na { TASK_RUNNING TCP_CLOSE AF_INET6 "
		     "TCP_LISTEN AF_NETLINK }",
		     "attach:a { int:0 int:7 int:10 int:10 int:16 }");
	check_tokens("a { AF_INET }", "attach:a { ident:AF_INET }");
	check_tokens("#define AF_INET 99\n#include <linux/socket.h>\na { AF_INET }",
		     "attach:a { int:99 }");
	/* a kernel header's nested includes: errno, DT_*, signals, ICMPv6
	 * (kconst.c), with no kernel headers installed; the script's own
	 * definition wins */
	check_tokens("#include <linux/skbuff.h>\na { DT_REG DT_FIFO EPERM SIGKILL "
		     "ICMPV6_ECHO_REQUEST O_CREAT AF_INET }",
		     "attach:a { int:8 int:1 int:1 int:9 int:128 int:64 int:2 }");
	check_tokens("#define EPERM 77\n#include <linux/fs.h>\na { EPERM DT_DIR }",
		     "attach:a { int:77 int:4 }");
	/* directives inside a body */
	check_tokens("a {\n#define K 5\n K\n}", "attach:a { int:5 }");
	/* a system header's conditionals on the architecture are decided:
	 * asm/unistd.h takes unistd_64.h, not unistd_32.h (where read is 3) */
	check_tokens("#include <syscall.h>\na { __NR_read __NR_close }",
		     "attach:a { int:0 int:3 }");
	char hdr[] = "/tmp/sonde-test-lexer-XXXXXX";
	int fd = mkstemp(hdr);
	assert_true(fd >= 0);
	const char *text = "#ifdef __i386__\n#define A 1\n#elif defined(__ILP32__)\n"
			   "#define A 2\n#else\n#define A 3\n#endif\n"
			   "#if !defined __x86_64__ /* not this one */\n#define B 4\n#endif\n"
			   "#ifndef __i386__\n#define B 5\n#endif\n"
			   "#if defined(__i386__) || defined(OTHER)\n#define C 6\n#else\n"
			   "#define D 7\n#endif\n";
	assert_true(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	char src[256];
	snprintf(src, sizeof(src), "#include \"%s\"\na { A B C D }", hdr);
#if defined(__x86_64__)
	check_tokens(src, "attach:a { int:3 int:5 ident:C int:7 }");
#endif
	unlink(hdr);
}

/* a header's #if/#ifdef/#elif/#else/#endif are evaluated for x86-64 (the
 * system's <asm/unistd.h> picks unistd_64.h by them) */
static void test_header_conditionals(void **state)
{
	char dir[] = "/tmp/sonde-lexer-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[64];
	snprintf(path, sizeof(path), "%s/cond.h", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("#ifndef COND_H\n#define COND_H\n"
	      "# ifdef __i386__\n#  define NR_A 3\n# elif defined(__ILP32__)\n#  define NR_A 1073741824\n"
	      "# else\n#  define NR_A 0\n# endif\n"
	      "#if defined(__x86_64__) && __SIZEOF_LONG__ == 8 /* LP64 */\n#define LONG_OK 1\n#endif\n"
	      "#if 0\n#define HIDDEN 5\n#if 1\n#define HIDDEN2 6\n#endif\n#else\n#define SHOWN 7\n#endif\n"
	      "#ifdef COND_H\n#define GUARDED 8\n#endif\n"
	      "#if SOMETHING(x)\n#define UNREAD 9\n#endif\n"
	      "#endif\n", f);
	fclose(f);
	const char *dirs[] = {dir};
	lex_set_includes(dirs, 1, NULL, 0);
	check_tokens("#include <cond.h>\na { NR_A LONG_OK SHOWN GUARDED UNREAD HIDDEN HIDDEN2 }",
		     "attach:a { int:0 int:1 int:7 int:8 int:9 ident:HIDDEN ident:HIDDEN2 }");
	lex_set_includes(NULL, 0, NULL, 0);
	unlink(path);
	rmdir(dir);
}

static void test_directive_errors(void **state)
{
	/* a header found nowhere is an error naming it, as clang's for
	 * bpftrace; a kernel header is BTF's (see test_directives) */
	check_error("#include <nonexistent/foo.h>\nBEGIN {}\n", "error",
		    "test.bt:1:11: error: '#include': file not found: 'nonexistent/foo.h'\n"
		    "#include <nonexistent/foo.h>\n"
		    "          ^~~~~~~~~~~~~~~~~\n");
	check_error("#include \"nonexistent.h\"\n", "error",
		    "test.bt:1:11: error: '#include': file not found: 'nonexistent.h'\n"
		    "#include \"nonexistent.h\"\n"
		    "          ^~~~~~~~~~~~~\n");
	check_error("#include <errno.h\n", "error",
		    "test.bt:1:10: error: '#include': missing the closing '>'\n"
		    "#include <errno.h\n"
		    "         ^~~~~~~~\n");
	check_error("#ifndef X\nBEGIN {}\n", "attach:BEGIN { } error",
		    "test.bt:1:1: error: '#ifndef' without '#endif'\n"
		    "#ifndef X\n"
		    "^~~~~~~\n");
	check_error("#if 0\nBEGIN {}\n", "error",
		    "test.bt:1:1: error: '#if' without '#endif'\n"
		    "#if 0\n"
		    "^~~\n");
	check_error("#endif\n", "error",
		    "test.bt:1:1: error: '#endif' without '#if'\n"
		    "#endif\n"
		    "^~~~~~\n");
	check_error("#else\n", "error",
		    "test.bt:1:1: error: '#else' without '#if'\n"
		    "#else\n"
		    "^~~~~\n");
	check_error("#if 1\n#else\n#else\n#endif", "error",
		    "test.bt:3:1: error: second '#else' for one '#if'\n"
		    "#else\n"
		    "^~~~~\n");
	check_error("#if X > 1\n#endif\n", "error",
		    "test.bt:1:5: error: unsupported '#if' condition 'X > 1'\n"
		    "#if X > 1\n"
		    "    ^~~~~\n");
	check_error("#error no\n", "error",
		    "test.bt:1:1: error: unsupported preprocessor directive '#error'\n"
		    "#error no\n"
		    "^~~~~~\n");
	check_error("BEGIN {}\n#!/bin/x\n", "attach:BEGIN { } error",
		    "test.bt:2:1: error: a '#!' line must be the first line\n"
		    "#!/bin/x\n"
		    "^~\n");
	check_error("#if 0\n#elif 1\n#endif\n", "error",
		    "test.bt:2:1: error: unsupported preprocessor directive '#elif'\n"
		    "#elif 1\n"
		    "^~~~~\n");
	check_error("# 1\n", "error",
		    "test.bt:1:1: error: invalid character '#'\n"
		    "# 1\n"
		    "^\n");
}

static void test_first_error_only(void **state)
{
	/* one message, then the scanner stays failed */
	check_error("a { ` ` \"x }", "attach:a { error",
		    "test.bt:1:5: error: invalid character '`'\n"
		    "a { ` ` \"x }\n"
		    "    ^\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_simple_probe),
		cmocka_unit_test(test_locations),
		cmocka_unit_test(test_attach_points),
		cmocka_unit_test(test_predicates),
		cmocka_unit_test(test_operators),
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_integer_errors),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_string_errors),
		cmocka_unit_test(test_chars),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_invalid_chars),
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_define),
		cmocka_unit_test(test_define_errors),
		cmocka_unit_test(test_directives),
		cmocka_unit_test(test_directive_errors),
		cmocka_unit_test(test_header_conditionals),
		cmocka_unit_test(test_first_error_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
