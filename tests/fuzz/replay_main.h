/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * replay_main.h - main() for the replay build of a fuzz target: runs every file (or every
 * file in every directory) given on the command line through LLVMFuzzerTestOneInput.
 * Included at the end of each target when DROCE_FUZZ_REPLAY is defined.
 */
#include <dirent.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
	static uint8_t buf[1 << 16];
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f) {
		perror(path);
		return 1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned files = 0;
	int rc = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;

		if (stat(argv[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
			rc |= run_file(argv[i]);
			files++;
			continue;
		}
		d = opendir(argv[i]);
		while (d && (e = readdir(d))) {
			char p[4096];

			if (e->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", argv[i], e->d_name);
			rc |= run_file(p);
			files++;
		}
		if (d)
			closedir(d);
	}
	printf("replayed %u inputs without a crash or leak\n", files);
	return rc || files == 0;
}
