/* a header for the -I and --include cases */
#define SONDE_DIFF_FOO 42
#define SONDE_DIFF_BAR SONDE_DIFF_FOO
