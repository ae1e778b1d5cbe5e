/* libFuzzer target for the runtime-program deserialiser.
 *
 * The input bytes are read with sym_program_deserialize.  Malformed bytes
 * must be refused; an accepted program must serialise back to the same
 * bytes, and it is run at inputs derived from the input's hash with
 * buffers of exactly the sizes it reports (so that ASan sees any read or
 * write beyond them): the run reports a known status, a failed guard index
 * within the guard count, the guard check alone agrees with the full run,
 * and the program read back from its serialised form computes the same. */
#define FUZZ_NAME "fuzz_program"
#include "fuzz_util.h"

/* Inputs or scratch slots beyond these are not run: the caller chooses the
 * number of inputs, so allocating 2**24 of them proves nothing. */
#define MAX_RUN_INPUTS 4096
#define MAX_RUN_SCRATCH (1u << 20)

static int64_t input_value(uint64_t *st)
{
	switch (fuzz_next(st) % 8) {
	case 0:
		return 0;
	case 1:
		return -fuzz_range(st, 1, 8);
	case 2:
		return INT64_MAX - fuzz_range(st, 0, 2);
	case 3:
		return INT64_MIN + fuzz_range(st, 0, 2);
	case 4:
		return (int64_t)fuzz_next(st);
	default:
		return fuzz_range(st, 1, 64);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t seed = fuzz_hash(data, size);
	sym_program *p = sym_program_deserialize(data, size), *back;
	unsigned char *bytes;
	size_t len = 0, ni, ng, no, ns, i;
	int64_t *in = NULL, *out = NULL, *out2 = NULL, *scratch = NULL;
	int pt;
	if (!p)
		return 0;
	ni = sym_program_num_inputs(p);
	ng = sym_program_num_guards(p);
	no = sym_program_num_outputs(p);
	ns = sym_program_scratch_size(p);
	FUZZ_CHECK(sym_program_num_instructions(p) <= size / 8, "%zu instructions from %zu bytes",
	           sym_program_num_instructions(p), size);
	FUZZ_CHECK(ng <= sym_program_num_instructions(p), "%zu guards, %zu instructions", ng,
	           sym_program_num_instructions(p));
	bytes = sym_program_serialize(p, &len);
	FUZZ_CHECK(bytes != NULL, "an accepted program does not serialise");
	FUZZ_CHECK(len == size && memcmp(bytes, data, size) == 0,
	           "serialising an accepted program gives other bytes (%zu, read %zu)", len, size);
	back = sym_program_deserialize(bytes, len);
	FUZZ_CHECK(back != NULL, "the serialised program is refused");
	free(bytes);
	if (ni > MAX_RUN_INPUTS || ns > MAX_RUN_SCRATCH)
		goto done;
	/* exact sizes, at least one byte so that malloc(0) is not NULL */
	in = malloc(ni ? ni * sizeof(*in) : 1);
	out = malloc(no ? no * sizeof(*out) : 1);
	out2 = malloc(no ? no * sizeof(*out2) : 1);
	scratch = malloc(ns ? ns * sizeof(*scratch) : 1);
	if (!in || !out || !out2 || !scratch)
		goto done;
	for (pt = 0; pt < 4; pt++) {
		size_t failed = (size_t)-1, failed2 = (size_t)-1, failed3 = (size_t)-1;
		sym_status st, st2, chk;
		for (i = 0; i < ni; i++)
			in[i] = input_value(&seed);
		st = sym_program_run(p, in, out, scratch, &failed);
		FUZZ_CHECK(st >= SYM_EOK && st <= SYM_EINEXACT, "run status %d", (int)st);
		FUZZ_CHECK(st != SYM_EGUARD || failed < ng, "guard %zu failed of %zu", failed, ng);
		chk = sym_program_check(p, in, scratch, &failed2);
		if (chk != SYM_EOK)
			FUZZ_CHECK(chk == st && (st != SYM_EGUARD || failed2 == failed),
			           "the check says %d (guard %zu), the run %d (guard %zu)", (int)chk, failed2,
			           (int)st, failed);
		else
			FUZZ_CHECK(st != SYM_EGUARD, "the check passes, the run fails guard %zu", failed);
		st2 = sym_program_run(back, in, out2, scratch, &failed3);
		FUZZ_CHECK(st2 == st && (st != SYM_EGUARD || failed3 == failed),
		           "the program read back says %d, the original %d", (int)st2, (int)st);
		if (st == SYM_EOK)
			FUZZ_CHECK(no == 0 || memcmp(out, out2, no * sizeof(*out)) == 0,
			           "the program read back computes other outputs");
	}
done:
	free(in);
	free(out);
	free(out2);
	free(scratch);
	sym_program_free(back);
	sym_program_free(p);
	return 0;
}
