/* The guard cache's dispatch program: the check and guard code of every
 * variant, hash-consed into one register file, with the guards as entries
 * that mark the variants failing them.  cache_private.h describes it;
 * program_private.h the instruction format it copies. */
#include "cache_private.h"
#include "model_program_private.h"
#include "program_private.h"

#include <string.h>

/* ---- blocks from the hook ------------------------------------------------ */

/* Grows the array *p of *cap elements of size sz to hold need (doubling,
 * at least min); 0 when memory runs out (then *p is unchanged). */
static int grow(sym__dispatch *d, void *p, size_t *cap, size_t need, size_t sz, size_t min)
{
	void **pp = p;
	size_t nc = *cap ? *cap : min;
	void *np;
	if (need <= *cap)
		return 1;
	while (nc < need) {
		if (nc > SIZE_MAX / 2)
			return 0;
		nc *= 2;
	}
	if (nc > SIZE_MAX / sz)
		return 0;
	np = d->alloc.realloc_fn(d->alloc.ud, *pp, *cap * sz, nc * sz);
	if (!np)
		return 0;
	memset((char *)np + *cap * sz, 0, (nc - *cap) * sz);
	*pp = np;
	*cap = nc;
	return 1;
}

static void give(sym__dispatch *d, void *p, size_t n)
{
	sym__hook_free(&d->alloc, p, n);
}

void sym__dispatch_init(sym__dispatch *d, const sym_allocator *a)
{
	memset(d, 0, sizeof(*d));
	d->alloc = *a;
}

void sym__dispatch_clear(sym__dispatch *d)
{
	sym_allocator a = d->alloc;
	give(d, d->regs, d->regcap * sizeof(*d->regs));
	give(d, d->rc, d->rccap * sizeof(*d->rc));
	give(d, d->code, d->codecap * SYM_INSN_WORDS * sizeof(*d->code));
	give(d, d->itab, d->itcap * sizeof(*d->itab));
	give(d, d->kreg, d->kcap * sizeof(*d->kreg));
	give(d, d->ktab, d->ktcap * sizeof(*d->ktab));
	give(d, d->ent, d->ecap * sizeof(*d->ent));
	give(d, d->etab, d->etcap * sizeof(*d->etab));
	give(d, d->ebits, d->ebcap * d->nwords * sizeof(*d->ebits));
	give(d, d->free_slots, d->freecap * sizeof(*d->free_slots));
	give(d, d->seg, d->segcap * SYM_INSN_WORDS * sizeof(*d->seg));
	give(d, d->fail, (SYM__DC_COUNT + 2) * d->nwords * sizeof(*d->fail));
	sym__dispatch_init(d, &a);
}

/* ---- hash indexes ------------------------------------------------------- */

static uint64_t mix(uint64_t h)
{
	h ^= h >> 31;
	h *= 0x7fb5d329728ea185ULL;
	h ^= h >> 27;
	h *= 0x81dadef4bc2dd44dULL;
	h ^= h >> 33;
	return h;
}

static uint64_t insn_hash(const int64_t *w)
{
	uint64_t h = mix((uint64_t)w[0] * 0x9e3779b97f4a7c15ULL);
	h = mix(h ^ (uint64_t)w[2]);
	h = mix(h ^ (uint64_t)w[3]);
	return mix(h ^ (uint64_t)w[4]);
}

/* The hash of entry i of the index tab: of an instruction, a constant or an
 * entry of d. */
typedef uint64_t (*hash_fn)(const sym__dispatch *d, size_t i);

static uint64_t code_hash(const sym__dispatch *d, size_t i)
{
	return insn_hash(d->code + i * SYM_INSN_WORDS);
}
static uint64_t const_hash(const sym__dispatch *d, size_t i)
{
	return mix((uint64_t)d->regs[d->kreg[i]]);
}
static uint64_t ent_hash_of(size_t reg, int cls)
{
	return mix((uint64_t)reg * 4 + (uint64_t)cls);
}
static uint64_t ent_hash(const sym__dispatch *d, size_t i)
{
	return ent_hash_of(d->ent[i].reg, d->ent[i].cls);
}

/* Makes room in the index *tab (*cap slots, entries index + 1) for n
 * entries at load 1/2, rehashing with h; 0 when memory runs out. */
static int index_reserve(sym__dispatch *d, size_t **tab, size_t *cap, size_t n, hash_fn h)
{
	size_t nc = *cap ? *cap : 16, i, j, *nt;
	if (n * 2 <= *cap)
		return 1;
	while (nc < n * 2)
		nc *= 2;
	if (nc > SIZE_MAX / sizeof(*nt) ||
	    !(nt = d->alloc.realloc_fn(d->alloc.ud, NULL, 0, nc * sizeof(*nt))))
		return 0;
	memset(nt, 0, nc * sizeof(*nt));
	for (i = 0; i < *cap; i++) {
		if (!(*tab)[i])
			continue;
		for (j = h(d, (*tab)[i] - 1) & (nc - 1); nt[j]; j = (j + 1) & (nc - 1))
			;
		nt[j] = (*tab)[i];
	}
	give(d, *tab, *cap * sizeof(**tab));
	*tab = nt, *cap = nc;
	return 1;
}

/* ---- registers ------------------------------------------------------------ */

/* Makes room for n registers; 0 when memory runs out. */
static int reserve_regs(sym__dispatch *d, size_t n)
{
	return grow(d, &d->regs, &d->regcap, n, sizeof(*d->regs), 64) &&
	       grow(d, &d->rc, &d->rccap, n, sizeof(*d->rc), 64);
}

/* The register of the constant v, a new one when d has none. */
static int const_reg(sym__dispatch *d, int64_t v, size_t *reg)
{
	size_t j;
	if (!index_reserve(d, &d->ktab, &d->ktcap, d->nk + 1, const_hash))
		return 0;
	for (j = mix((uint64_t)v) & (d->ktcap - 1); d->ktab[j]; j = (j + 1) & (d->ktcap - 1))
		if (d->regs[d->kreg[d->ktab[j] - 1]] == v) {
			*reg = d->kreg[d->ktab[j] - 1];
			return 1;
		}
	if (!grow(d, &d->kreg, &d->kcap, d->nk + 1, sizeof(*d->kreg), 16) || !reserve_regs(d, d->nregs + 1))
		return 0;
	d->regs[d->nregs] = v;
	d->kreg[d->nk] = d->nregs;
	d->ktab[j] = ++d->nk;
	*reg = d->nregs++;
	return 1;
}

static int is_commutative(int64_t op)
{
	switch (op) {
	case SYM_OP_ADD:
	case SYM_OP_MUL:
	case SYM_OP_MIN:
	case SYM_OP_MAX:
	case SYM_OP_EQ:
	case SYM_OP_NE:
	case SYM_OP_AND:
	case SYM_OP_OR:
		return 1;
	default:
		return 0;
	}
}

/* Looks up the instruction w (operands renumbered, dst unset) in the shared
 * code; its slot in the index in *slot. */
static int find_insn(const sym__dispatch *d, const int64_t *w, size_t *slot, size_t *reg)
{
	size_t j;
	if (!d->itcap)
		return 0;
	for (j = insn_hash(w) & (d->itcap - 1); d->itab[j]; j = (j + 1) & (d->itcap - 1)) {
		const int64_t *o = d->code + (d->itab[j] - 1) * SYM_INSN_WORDS;
		if (o[0] == w[0] && o[2] == w[2] && o[3] == w[3] && o[4] == w[4]) {
			*reg = (size_t)o[1];
			return 1;
		}
	}
	*slot = j;
	return 0;
}

/* Renumbers the operands of the program's instruction src through map into
 * w, commutative operands ordered. */
static void renumber(const int64_t *src, const size_t *map, int64_t *w)
{
	int ar = sym__op_arity(src[0]);
	w[0] = src[0], w[1] = 0;
	w[2] = (int64_t)map[src[2]];
	w[3] = ar >= 2 ? (int64_t)map[src[3]] : 0;
	w[4] = ar >= 3 ? (int64_t)map[src[4]] : 0;
	if (is_commutative(w[0]) && w[2] > w[3]) {
		int64_t t = w[2];
		w[2] = w[3], w[3] = t;
	}
}

/* The shared register of the instruction w, appended when new. */
static int shared_insn(sym__dispatch *d, int64_t *w, size_t *reg)
{
	size_t slot = 0;
	if (!index_reserve(d, &d->itab, &d->itcap, d->ninsns + 1, code_hash))
		return 0;
	if (find_insn(d, w, &slot, reg))
		return 1;
	if (!grow(d, &d->code, &d->codecap, d->ninsns + 1, SYM_INSN_WORDS * sizeof(*d->code), 64) ||
	    !reserve_regs(d, d->nregs + 1))
		return 0;
	w[1] = (int64_t)d->nregs;
	memcpy(d->code + d->ninsns * SYM_INSN_WORDS, w, SYM_INSN_WORDS * sizeof(*w));
	d->itab[slot] = ++d->ninsns;
	/* held by no variant yet: garbage unless the caller holds it */
	d->dead_insns++;
	*reg = d->nregs++;
	return 1;
}

/* ---- entries and slots ------------------------------------------------------ */

/* Widens every bit set to nw words; 0 when memory runs out. */
static int widen(sym__dispatch *d, size_t nw)
{
	uint64_t *nb = NULL, *nf;
	size_t i;
	if (d->ebcap && !(nb = d->alloc.realloc_fn(d->alloc.ud, NULL, 0, d->ebcap * nw * sizeof(*nb))))
		return 0;
	if (!(nf = d->alloc.realloc_fn(d->alloc.ud, NULL, 0, (SYM__DC_COUNT + 2) * nw * sizeof(*nf)))) {
		give(d, nb, d->ebcap * nw * sizeof(*nb));
		return 0;
	}
	if (nb) {
		memset(nb, 0, d->ebcap * nw * sizeof(*nb));
		for (i = 0; i < d->nent; i++)
			memcpy(nb + i * nw, d->ebits + i * d->nwords, d->nwords * sizeof(*nb));
	}
	memset(nf, 0, (SYM__DC_COUNT + 2) * nw * sizeof(*nf));
	/* the slots in use (the last row) */
	for (i = 0; i < d->nwords; i++)
		nf[(SYM__DC_COUNT + 1) * nw + i] = d->fail[(SYM__DC_COUNT + 1) * d->nwords + i];
	give(d, d->ebits, d->ebcap * d->nwords * sizeof(*d->ebits));
	give(d, d->fail, (SYM__DC_COUNT + 2) * d->nwords * sizeof(*d->fail));
	d->ebits = nb, d->fail = nf, d->nwords = nw;
	return 1;
}

/* Takes a free slot into *slot; 0 when memory runs out. */
static int take_slot(sym__dispatch *d, size_t *slot)
{
	if (d->nfree) {
		*slot = d->free_slots[--d->nfree];
		return 1;
	}
	if (d->nslots == d->nwords * 64 && !widen(d, d->nwords ? d->nwords * 2 : 1))
		return 0;
	/* room to give it back later without allocating */
	if (!grow(d, &d->free_slots, &d->freecap, d->nslots + 1, sizeof(*d->free_slots), 8))
		return 0;
	*slot = d->nslots++;
	return 1;
}

/* The row of the slots in use. */
static uint64_t *slots_row(const sym__dispatch *d)
{
	return d->fail + (SYM__DC_COUNT + 1) * d->nwords;
}

/* Makes dv's slot a member of the entry (reg, cls), a new entry when d has
 * none; 0 when memory runs out. */
static int join_entry(sym__dispatch *d, sym__dvariant *dv, size_t reg, int cls)
{
	size_t j, e, w = dv->slot / 64;
	uint64_t bit = (uint64_t)1 << (dv->slot % 64);
	if (!index_reserve(d, &d->etab, &d->etcap, d->nent + 1, ent_hash))
		return 0;
	for (j = ent_hash_of(reg, cls) & (d->etcap - 1); d->etab[j]; j = (j + 1) & (d->etcap - 1)) {
		e = d->etab[j] - 1;
		if (d->ent[e].reg == reg && d->ent[e].cls == cls)
			goto found;
	}
	if (!grow(d, &d->ent, &d->ecap, d->nent + 1, sizeof(*d->ent), 16))
		return 0;
	if (d->nent == d->ebcap) {
		size_t nc = d->ebcap ? d->ebcap * 2 : 16;
		uint64_t *nb = d->alloc.realloc_fn(d->alloc.ud, d->ebits, d->ebcap * d->nwords * sizeof(*nb),
		                                   nc * d->nwords * sizeof(*nb));
		if (!nb)
			return 0;
		memset(nb + d->ebcap * d->nwords, 0, (nc - d->ebcap) * d->nwords * sizeof(*nb));
		d->ebits = nb, d->ebcap = nc;
	}
	e = d->nent++;
	d->ent[e].reg = reg, d->ent[e].cls = cls, d->ent[e].members = 0;
	d->etab[j] = e + 1;
	d->dead_ents++;
found:
	if (d->ebits[e * d->nwords + w] & bit)
		return 1; /* a repeated guard of the same class */
	d->ebits[e * d->nwords + w] |= bit;
	if (!d->ent[e].members++)
		d->dead_ents--;
	dv->ents[dv->nents++] = e;
	return 1;
}

/* ---- adding and removing a program ------------------------------------------- */

/* The class of guard g (GUARD's index: the checks first) of mp. */
static int guard_class(const sym_model_program *mp, const sym_program *p, size_t g)
{
	if (g < p->nchecks)
		return SYM__DC_INPUT;
	return sym__model_program_guard_is_assert(mp, g - p->nchecks) ? SYM__DC_ASSERT : SYM__DC_EXPECT;
}

/* Whether the dispatch can take p: the inputs of d, the guards in class
 * order. */
static int dispatchable(const sym__dispatch *d, const sym_model_program *mp, const sym_program *p)
{
	size_t i;
	int last = SYM__DC_INPUT;
	if (d->have_dims && p->ninputs != d->ndims)
		return 0;
	for (i = 0; i < p->check_end; i++) {
		const int64_t *w = p->code + i * SYM_INSN_WORDS;
		int cls;
		if (w[0] != SYM_OP_GUARD)
			continue;
		cls = guard_class(mp, p, (size_t)w[3]);
		if (cls < last)
			return 0;
		last = cls;
	}
	return 1;
}

/* Records that dv holds the shared instruction of register r (room
 * reserved). */
static void hold(sym__dispatch *d, sym__dvariant *dv, size_t r)
{
	if (!d->rc[r]++)
		d->dead_insns--;
	dv->refs[dv->nrefs++] = r;
}

int sym__dispatch_add(sym__dispatch *d, const sym_model_program *mp, sym__dvariant *dv)
{
	const sym_program *p = sym__model_program_code(mp);
	size_t *map = NULL, i, seg_end = p->nsegs ? (size_t)p->segs[0] : p->check_end, mapn = p->nregs + 1;
	memset(dv, 0, sizeof(*dv));
	if (!dispatchable(d, mp, p)) {
		dv->own = 1;
		return 0;
	}
	/* one reference per instruction at most, one entry per guard */
	dv->rcap = p->ninsns + 1, dv->ecap = p->nguards + 1;
	if (mapn > SIZE_MAX / sizeof(*map) || dv->rcap > SIZE_MAX / sizeof(size_t) ||
	    !(map = d->alloc.realloc_fn(d->alloc.ud, NULL, 0, mapn * sizeof(*map))) ||
	    !(dv->refs = d->alloc.realloc_fn(d->alloc.ud, NULL, 0, dv->rcap * sizeof(*dv->refs))) ||
	    !(dv->ents = d->alloc.realloc_fn(d->alloc.ud, NULL, 0, dv->ecap * sizeof(*dv->ents))) ||
	    !take_slot(d, &dv->slot)) {
		give(d, map, map ? mapn * sizeof(*map) : 0);
		give(d, dv->refs, dv->refs ? dv->rcap * sizeof(*dv->refs) : 0);
		give(d, dv->ents, dv->ents ? dv->ecap * sizeof(*dv->ents) : 0);
		memset(dv, 0, sizeof(*dv));
		return -1;
	}
	dv->seg_start = dv->seg_end = d->nseg;
	slots_row(d)[dv->slot / 64] |= (uint64_t)1 << (dv->slot % 64);
	if (!d->have_dims) {
		if (!reserve_regs(d, p->ninputs + 1))
			goto fail;
		d->ndims = d->nregs = p->ninputs;
		d->have_dims = 1;
	}
	for (i = 0; i < p->ninputs; i++)
		map[i] = i;
	for (i = 0; i < p->nconsts; i++)
		if (!const_reg(d, p->consts[i], &map[p->ninputs + i]))
			goto fail;
	for (i = 0; i < p->check_end; i++) {
		const int64_t *src = p->code + i * SYM_INSN_WORDS;
		int64_t w[SYM_INSN_WORDS];
		size_t reg;
		if (src[0] == SYM_OP_GUARD) {
			if (!join_entry(d, dv, map[src[2]], guard_class(mp, p, (size_t)src[3])))
				goto fail;
			continue;
		}
		renumber(src, map, w);
		if (!shared_insn(d, w, &reg))
			goto fail;
		hold(d, dv, reg);
		map[src[1]] = reg;
	}
	/* the shapes segment: what the shared code computes already is read
	 * from it, the rest is the variant's own */
	for (i = p->check_end; i < seg_end; i++) {
		const int64_t *src = p->code + i * SYM_INSN_WORDS;
		int64_t w[SYM_INSN_WORDS];
		size_t reg, slot;
		renumber(src, map, w);
		if (find_insn(d, w, &slot, &reg)) {
			hold(d, dv, reg);
		} else {
			if (!grow(d, &d->seg, &d->segcap, d->nseg + 1, SYM_INSN_WORDS * sizeof(*d->seg),
			          64) ||
			    !reserve_regs(d, d->nregs + 1))
				goto fail;
			reg = d->nregs++;
			w[1] = (int64_t)reg;
			memcpy(d->seg + d->nseg++ * SYM_INSN_WORDS, w, sizeof(w));
			dv->seg_end = d->nseg;
		}
		map[src[1]] = reg;
	}
	give(d, map, mapn * sizeof(*map));
	return 0;
fail:
	give(d, map, mapn * sizeof(*map));
	sym__dispatch_remove(d, dv);
	return -1;
}

void sym__dispatch_remove(sym__dispatch *d, sym__dvariant *dv)
{
	size_t i, w = dv->slot / 64;
	uint64_t bit = (uint64_t)1 << (dv->slot % 64);
	if (dv->refs) {
		for (i = 0; i < dv->nrefs; i++)
			if (!--d->rc[dv->refs[i]])
				d->dead_insns++;
		for (i = 0; i < dv->nents; i++) {
			size_t e = dv->ents[i];
			d->ebits[e * d->nwords + w] &= ~bit;
			if (!--d->ent[e].members)
				d->dead_ents++;
		}
		d->dead_seg += dv->seg_end - dv->seg_start;
		d->free_slots[d->nfree++] = dv->slot;
		slots_row(d)[w] &= ~bit;
		give(d, dv->refs, dv->rcap * sizeof(*dv->refs));
		give(d, dv->ents, dv->ecap * sizeof(*dv->ents));
	}
	memset(dv, 0, sizeof(*dv));
}

size_t sym__dispatch_garbage(const sym__dispatch *d)
{
	return d->dead_insns + d->dead_seg + d->dead_ents;
}

size_t sym__dispatch_live(const sym__dispatch *d)
{
	return d->ninsns + d->nseg + d->nent - sym__dispatch_garbage(d);
}

/* ---- a pass ------------------------------------------------------------------- */

/* Runs the instructions code[0, n) on d's registers; 0, or -1 at the first
 * that fails. */
static int exec(sym__dispatch *d, const int64_t *code, size_t n)
{
	const int64_t *w = code, *end = code + n * SYM_INSN_WORDS;
	int64_t *r = d->regs;
	for (; w < end; w += SYM_INSN_WORDS)
		if (sym__insn_exec(w, r) != SYM_EOK)
			return -1;
	return 0;
}

int sym__dispatch_pass(sym__dispatch *d, const int64_t *dims, int asserts_stop)
{
	size_t i, k, nw = d->nwords;
	const int64_t *r = d->regs;
	uint64_t *f0 = d->fail, *f1 = f0 + nw, *f2 = f1 + nw, *stop = f2 + nw;
	if (d->ndims)
		memcpy(d->regs, dims, d->ndims * sizeof(*dims));
	if (exec(d, d->code, d->ninsns) < 0)
		return -1;
	if (nw)
		memset(d->fail, 0, SYM__DC_COUNT * nw * sizeof(*d->fail));
	for (i = 0; i < d->nent; i++)
		if (r[d->ent[i].reg] == 0) {
			uint64_t *f = d->fail + (size_t)d->ent[i].cls * nw;
			const uint64_t *b = d->ebits + i * nw;
			for (k = 0; k < nw; k++)
				f[k] |= b[k];
		}
	for (k = 0; k < nw; k++)
		stop[k] = asserts_stop ? ~(f2[k] & ~f0[k] & ~f1[k]) : f0[k] | ~(f1[k] | f2[k]);
	return 0;
}

int sym__dispatch_any_stops(const sym__dispatch *d, const sym__dvariant *except)
{
	const uint64_t *stop = d->fail + SYM__DC_COUNT * d->nwords, *used = slots_row(d);
	size_t k;
	for (k = 0; k < d->nwords; k++) {
		uint64_t m = stop[k] & used[k];
		if (except && !except->own && except->refs && except->slot / 64 == k)
			m &= ~((uint64_t)1 << (except->slot % 64));
		if (m)
			return 1;
	}
	return 0;
}

int sym__dispatch_stops(const sym__dispatch *d, const sym__dvariant *dv)
{
	return (int)(d->fail[SYM__DC_COUNT * d->nwords + dv->slot / 64] >> (dv->slot % 64)) & 1;
}

int sym__dispatch_class(const sym__dispatch *d, const sym__dvariant *dv)
{
	size_t w = dv->slot / 64;
	uint64_t bit = (uint64_t)1 << (dv->slot % 64);
	int cls;
	for (cls = 0; cls < SYM__DC_COUNT; cls++)
		if (d->fail[(size_t)cls * d->nwords + w] & bit)
			return cls;
	return SYM__DV_OK;
}

int sym__dispatch_segment(sym__dispatch *d, const sym__dvariant *dv)
{
	return exec(d, d->seg + dv->seg_start * SYM_INSN_WORDS, dv->seg_end - dv->seg_start);
}
