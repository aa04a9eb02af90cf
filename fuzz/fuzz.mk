# The fuzz targets' build and run (GNU make), called by `make fuzz` with
# top_srcdir, FUZZ_CC, FUZZ_SECONDS, FUZZ_TARGETS, LIB_SOURCES (libperpi's
# .c files), DEP_CFLAGS and DEP_LIBS. Everything lands in fuzz/build/.
B = fuzz/build
FUZZ_CFLAGS = -std=gnu11 -g -O1 -fno-omit-frame-pointer \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
	-DHAVE_CONFIG_H -I. -I$(top_srcdir) -I$(top_srcdir)/include $(DEP_CFLAGS)
LIB_OBJS = $(patsubst %.c,$(B)/obj/%.o,$(LIB_SOURCES))
# per input: 10 s is a hang; a leak or any sanitizer report is a crash
FUZZ_FLAGS = -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -detect_leaks=1

build: $(FUZZ_TARGETS:%=$(B)/fuzz_%)

$(B)/obj/%.o: $(top_srcdir)/%.c
	@mkdir -p $(@D)
	@echo "  FUZZCC   $<"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/libperpi-fuzz.a: $(LIB_OBJS) $(B)/obj/fuzz/fuzz_util.o
	@rm -f $@
	@ar rcs $@ $^

$(B)/fuzz_%: $(B)/obj/fuzz/fuzz_%.o $(B)/libperpi-fuzz.a
	@echo "  FUZZLD   $@"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(DEP_LIBS)

# Each target for FUZZ_SECONDS on its seeds (fuzz/corpus/NAME, never
# modified) and what earlier runs found (fuzz/build/corpus/NAME); a crash,
# leak or hang stops here, its input in fuzz/build/crashes/. ASan keeps
# freed memory instead of giving it back to the system (unless ASAN_OPTIONS
# says otherwise): on this VM its madvise calls stalled for over 10 s twice
# in a trace_file campaign, taken for hangs (the inputs ran in 0.3-0.6 s).
run: build
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(B)/corpus/$$t $(B)/crashes; \
		echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
		ASAN_OPTIONS="$${ASAN_OPTIONS:-allocator_release_to_os_interval_ms=-1}" \
		$(B)/fuzz_$$t $(FUZZ_FLAGS) -max_total_time=$(FUZZ_SECONDS) \
			-artifact_prefix=$(B)/crashes/$$t- $(B)/corpus/$$t \
			$(top_srcdir)/fuzz/corpus/$$t >$(B)/$$t.log 2>&1; \
		st=$$?; \
		grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb)|^#[0-9]+.*DONE' $(B)/$$t.log | tr '\n' ' '; echo; \
		if [ $$st != 0 ]; then echo "fuzz: $$t FAILED (exit $$st): see $(B)/$$t.log"; tail -n 30 $(B)/$$t.log; exit 1; fi; \
	done

# the targets' own objects too: a changed header must rebuild them
-include $(LIB_OBJS:.o=.d) $(FUZZ_TARGETS:%=$(B)/obj/fuzz/fuzz_%.d) $(B)/obj/fuzz/fuzz_util.d
.PHONY: build run
.SECONDARY:
