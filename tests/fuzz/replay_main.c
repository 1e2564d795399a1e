/* Replays fuzz inputs through a target without libFuzzer: every file named
 * on the command line, or every file in a named directory, is passed to
 * LLVMFuzzerTestOneInput once. A crash or a failed oracle (abort) fails the
 * test; this is how tests/fuzz/regressions/ stays fixed in ordinary builds. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        fclose(f);
        free(buf);
        return 1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)n);
    free(buf);
    return 0;
}

int main(int argc, char **argv) {
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    int files = 0, errors = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "no such file or directory: %s\n", argv[i]);
            errors++;
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            DIR *d = opendir(argv[i]);
            struct dirent *e;
            while (d && (e = readdir(d))) {
                if (e->d_name[0] == '.' || strcmp(e->d_name, "README.md") == 0) continue;
                char p[4096];
                snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
                errors += replay_file(p);
                files++;
            }
            if (d) closedir(d);
        } else {
            errors += replay_file(argv[i]);
            files++;
        }
    }
    printf("replayed %d inputs, %d unreadable\n", files, errors);
    return errors ? 1 : 0;
}
