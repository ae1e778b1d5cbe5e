/* Replays inputs through LLVMFuzzerTestOneInput without libFuzzer, so the
 * seed corpus and saved crashes run in any build.
 *
 * Usage: replay FILE-OR-DIRECTORY...  (a directory means every regular file
 * in it, in name order). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Reads the whole file into a malloc'd buffer; returns NULL on error. */
static uint8_t *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n = 0;
	if (!f)
		return NULL;
	for (;;) {
		size_t got;
		if (n == cap) {
			uint8_t *nb;
			cap = cap ? 2 * cap : 4096;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*size = n;
	return buf;
}

static int run_file(const char *path)
{
	size_t size = 0;
	uint8_t *data = read_file(path, &size);
	if (!data) {
		fprintf(stderr, "replay: cannot read '%s'\n", path);
		return 1;
	}
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file of dir in name order; adds the count to *count. */
static int run_dir(const char *dir, size_t *count)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int bad = 0;
	if (!d) {
		fprintf(stderr, "replay: cannot open '%s'\n", dir);
		return 1;
	}
	while ((ent = readdir(d)) != NULL) {
		char *path;
		struct stat st;
		size_t len = strlen(dir) + strlen(ent->d_name) + 2;
		if (ent->d_name[0] == '.')
			continue;
		path = malloc(len);
		if (!path) {
			bad = 1;
			break;
		}
		snprintf(path, len, "%s/%s", dir, ent->d_name);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		if (n == cap) {
			char **nn;
			cap = cap ? 2 * cap : 64;
			nn = realloc(names, cap * sizeof(*names));
			if (!nn) {
				free(path);
				bad = 1;
				break;
			}
			names = nn;
		}
		names[n++] = path;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		bad |= run_file(names[i]);
		free(names[i]);
	}
	free(names);
	*count += n;
	return bad;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int i, bad = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE-OR-DIRECTORY...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: cannot open '%s'\n", argv[i]);
			bad = 1;
		} else if (S_ISDIR(st.st_mode)) {
			bad |= run_dir(argv[i], &count);
		} else {
			bad |= run_file(argv[i]);
			count++;
		}
	}
	printf("replayed %zu inputs\n", count);
	return bad;
}
