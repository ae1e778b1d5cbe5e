/* What is wrong with an ONNX file.
 *
 * A walk over the wire format along the messages of the subset: the first
 * field whose wire type is not the declared one, or whose length runs past
 * its message, is named in the error.  It also runs on every file protobuf-c
 * accepts: protobuf-c keeps a key of field number 0 (written in more than
 * one byte) or beyond 2**29 - 1 as an unknown field and would write it back,
 * and such a key is invalid protobuf, so the file is rejected here. */
#include "model/onnx_private.h"

#include <stdint.h>
#include <stdio.h>

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

typedef struct wfield {
	unsigned num;
	int wt;
	const char *name;
	const struct wmsg *child;
} wfield;

typedef struct wmsg {
	const char *name;
	size_t n;
	const wfield *f;
} wmsg;

#define WMSG(var, name, ...)                                                                                 \
	static const wfield var##_f[] = {__VA_ARGS__};                                                       \
	static const wmsg var = {name, sizeof(var##_f) / sizeof(var##_f[0]), var##_f}

WMSG(w_entry, "StringStringEntryProto", {1, WT_LEN, "key", NULL}, {2, WT_LEN, "value", NULL});
WMSG(w_opset, "OperatorSetIdProto", {1, WT_LEN, "domain", NULL}, {2, WT_VARINT, "version", NULL});
WMSG(w_dim, "TensorShapeProto.Dimension", {1, WT_VARINT, "dim_value", NULL}, {2, WT_LEN, "dim_param", NULL},
     {3, WT_LEN, "denotation", NULL});
WMSG(w_shape, "TensorShapeProto", {1, WT_LEN, "dim", &w_dim});
WMSG(w_ttype, "TypeProto.Tensor", {1, WT_VARINT, "elem_type", NULL}, {2, WT_LEN, "shape", &w_shape});
WMSG(w_type, "TypeProto", {1, WT_LEN, "tensor_type", &w_ttype}, {6, WT_LEN, "denotation", NULL});
WMSG(w_vinfo, "ValueInfoProto", {1, WT_LEN, "name", NULL}, {2, WT_LEN, "type", &w_type},
     {3, WT_LEN, "doc_string", NULL});
WMSG(w_tensor, "TensorProto", {1, -1, "dims", NULL}, {2, WT_VARINT, "data_type", NULL},
     {4, -1, "float_data", NULL}, {5, -1, "int32_data", NULL}, {6, WT_LEN, "string_data", NULL},
     {7, -1, "int64_data", NULL}, {8, WT_LEN, "name", NULL}, {9, WT_LEN, "raw_data", NULL},
     {10, -1, "double_data", NULL}, {11, -1, "uint64_data", NULL}, {12, WT_LEN, "doc_string", NULL},
     {13, WT_LEN, "external_data", &w_entry}, {14, WT_VARINT, "data_location", NULL});
static const wmsg w_graph; /* subgraphs of attributes */
WMSG(w_attr, "AttributeProto", {1, WT_LEN, "name", NULL}, {2, WT_I32, "f", NULL}, {3, WT_VARINT, "i", NULL},
     {4, WT_LEN, "s", NULL}, {5, WT_LEN, "t", &w_tensor}, {6, WT_LEN, "g", &w_graph}, {7, -1, "floats", NULL},
     {8, -1, "ints", NULL}, {9, WT_LEN, "strings", NULL}, {10, WT_LEN, "tensors", &w_tensor},
     {11, WT_LEN, "graphs", &w_graph}, {13, WT_LEN, "doc_string", NULL}, {20, WT_VARINT, "type", NULL},
     {21, WT_LEN, "ref_attr_name", NULL});
WMSG(w_node, "NodeProto", {1, WT_LEN, "input", NULL}, {2, WT_LEN, "output", NULL}, {3, WT_LEN, "name", NULL},
     {4, WT_LEN, "op_type", NULL}, {5, WT_LEN, "attribute", &w_attr}, {6, WT_LEN, "doc_string", NULL},
     {7, WT_LEN, "domain", NULL});
WMSG(w_graph, "GraphProto", {1, WT_LEN, "node", &w_node}, {2, WT_LEN, "name", NULL},
     {5, WT_LEN, "initializer", &w_tensor}, {10, WT_LEN, "doc_string", NULL}, {11, WT_LEN, "input", &w_vinfo},
     {12, WT_LEN, "output", &w_vinfo}, {13, WT_LEN, "value_info", &w_vinfo});
WMSG(w_model, "ModelProto", {1, WT_VARINT, "ir_version", NULL}, {2, WT_LEN, "producer_name", NULL},
     {3, WT_LEN, "producer_version", NULL}, {4, WT_LEN, "domain", NULL},
     {5, WT_VARINT, "model_version", NULL}, {6, WT_LEN, "doc_string", NULL}, {7, WT_LEN, "graph", &w_graph},
     {8, WT_LEN, "opset_import", &w_opset}, {14, WT_LEN, "metadata_props", &w_entry});

static int read_varint(const uint8_t *p, size_t len, size_t *pos, uint64_t *v)
{
	int shift = 0;
	*v = 0;
	while (*pos < len && shift < 64) {
		uint8_t b = p[(*pos)++];
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
		shift += 7;
	}
	return -1;
}

static const char *wt_name(int wt)
{
	switch (wt) {
	case WT_VARINT:
		return "varint";
	case WT_I64:
		return "64-bit";
	case WT_LEN:
		return "length-delimited";
	case WT_I32:
		return "32-bit";
	default:
		return "invalid";
	}
}

/* Messages nest at most this deep in a file (a subgraph is three levels). */
#define WIRE_DEPTH_LIMIT 200

/* Writes what is wrong into why (empty when the walk finds nothing);
 * base is the offset of the message in the file, depth its nesting. */
static void diagnose(const wmsg *m, const uint8_t *p, size_t len, size_t base, int depth, sym_sbuf *why)
{
	size_t pos = 0;
	if (depth > WIRE_DEPTH_LIMIT) {
		sym__sbuf_printf(why, "%s at byte %zu: messages nest deeper than %d", m->name, base,
		                 WIRE_DEPTH_LIMIT);
		return;
	}
	while (pos < len && !why->n && !why->fail) {
		size_t at = pos, k, flen = 0;
		uint64_t tag, v;
		int wt;
		const wfield *f = NULL;
		if (read_varint(p, len, &pos, &tag) < 0) {
			sym__sbuf_printf(why, "%s: a field tag at byte %zu is cut off", m->name, base + at);
			return;
		}
		wt = (int)(tag & 7);
		for (k = 0; k < m->n; k++)
			if (m->f[k].num == tag >> 3)
				f = &m->f[k];
		if (tag >> 3 == 0) {
			sym__sbuf_printf(why, "%s: field number 0 at byte %zu", m->name, base + at);
			return;
		}
		if (tag >> 3 > 536870911u) {
			sym__sbuf_printf(why, "%s: field number %llu at byte %zu is beyond 2**29 - 1",
			                 m->name, (unsigned long long)(tag >> 3), base + at);
			return;
		}
		if (f && f->wt >= 0 && f->wt != wt) {
			sym__sbuf_printf(
			    why, "%s field %u (%s) at byte %zu has wire type %d (%s), expected %s", m->name,
			    f->num, f->name, base + at, wt, wt_name(wt), wt_name(f->wt));
			return;
		}
		switch (wt) {
		case WT_VARINT:
			if (read_varint(p, len, &pos, &v) < 0) {
				sym__sbuf_printf(why, "%s: the value of field %u at byte %zu is cut off",
				                 m->name, (unsigned)(tag >> 3), base + at);
				return;
			}
			continue;
		case WT_I64:
		case WT_I32:
			flen = wt == WT_I64 ? 8 : 4;
			break;
		case WT_LEN:
			if (read_varint(p, len, &pos, &v) < 0 || v > len - pos) {
				sym__sbuf_printf(
				    why,
				    "%s field %u (%s) at byte %zu runs past the end of its message "
				    "(truncated)",
				    m->name, (unsigned)(tag >> 3), f ? f->name : "unknown", base + at);
				return;
			}
			flen = (size_t)v;
			if (f && f->child)
				diagnose(f->child, p + pos, flen, base + pos, depth + 1, why);
			break;
		default:
			sym__sbuf_printf(why, "%s: field %u at byte %zu has the invalid wire type %d",
			                 m->name, (unsigned)(tag >> 3), base + at, wt);
			return;
		}
		if (flen > len - pos) {
			sym__sbuf_printf(why, "%s field %u at byte %zu is cut off (truncated)", m->name,
			                 (unsigned)(tag >> 3), base + at);
			return;
		}
		pos += flen;
	}
}

void sym__onnx_diagnose(sym_sbuf *why, const void *data, size_t len)
{
	diagnose(&w_model, data, len, 0, 0, why);
}
