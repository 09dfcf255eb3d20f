/* test_npy: the .npy reader: every dtype in both byte orders, format
 * versions 1-3, fortran order, 0-d and empty arrays; and hostile files
 * (truncated, lying headers, object and string dtypes, a FIFO, a folder,
 * a shape claiming gigabytes) each rejected with the file's name. */
#include <sys/stat.h>

#include "pt_test.h"
#include "npy_write.h"
#include "src/io/dump/read_npy.h"

static char dir[4096];

static const char *path_of(const char *name) {
    static char buf[4][4400];
    static int k;
    char *b = buf[k++ & 3];
    snprintf(b, 4400, "%s/%s", dir, name);
    return b;
}

/* Writes the bytes, reads them back; returns the reader's rc. */
static int roundtrip(const char *name, int version, const char *dict, const void *data, size_t len,
                     struct tensorcmp_tensor *t, struct pt_error *err) {
    const char *p = path_of(name);
    if (npy_write_raw(p, version, dict, data, len) != 0) return -2;
    return npy_read(p, t, err);
}

static void test_dtypes_little(void) {
    struct tensorcmp_tensor t;
    struct pt_error err;
    const unsigned char f2[] = {0x00, 0x3c, 0x00, 0xc1, 0xff, 0x7b, 0x01, 0x00, 0x00, 0x7c, 0x00, 0x7e};
    CHECK_INT(roundtrip("f2.npy", 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (6,), }", f2, sizeof f2, &t, &err), 0);
    CHECK_INT(t.n, 6);
    CHECK_INT(t.dtype, TENSORCMP_F16);
    CHECK_INT(t.ndim, 1);
    CHECK_NEAR(t.v[0], 1.0, 0);
    CHECK_NEAR(t.v[1], -2.5, 0);
    CHECK_NEAR(t.v[2], 65504.0, 0);
    CHECK_NEAR(t.v[3], 5.960464477539063e-08, 0);   /* the smallest subnormal */
    CHECK(isinf(t.v[4]) && t.v[4] > 0);
    CHECK(isnan(t.v[5]));
    free(t.v);
    const float f4v[] = {1.5f, -0.1f, 3e38f};
    CHECK_INT(npy_write_f32(path_of("f4.npy"), "(3,)", f4v, 3), 0);
    CHECK_INT(npy_read(path_of("f4.npy"), &t, &err), 0);
    CHECK_INT(t.dtype, TENSORCMP_F32);
    CHECK_NEAR(t.v[1], (double)-0.1f, 0);
    CHECK_NEAR(t.v[2], (double)3e38f, 0);
    free(t.v);
    double f8v[] = {0.1, -1e300};
    CHECK_INT(roundtrip("f8.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", f8v, sizeof f8v, &t, &err), 0);
    CHECK_INT(t.dtype, TENSORCMP_F64);
    CHECK_NEAR(t.v[0], 0.1, 0);
    CHECK_NEAR(t.v[1], -1e300, 0);
    free(t.v);
    const unsigned char b1[] = {0, 1, 1, 0};
    CHECK_INT(roundtrip("b1.npy", 1, "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }", b1, 4, &t, &err), 0);
    CHECK_INT(t.dtype, TENSORCMP_BOOL);
    CHECK_NEAR(t.v[1] + t.v[2] + t.v[3], 2.0, 0);
    free(t.v);
    const unsigned char i1[] = {0x80, 0x7f, 0xff};
    CHECK_INT(roundtrip("i1.npy", 1, "{'descr': '|i1', 'fortran_order': False, 'shape': (3,), }", i1, 3, &t, &err), 0);
    CHECK_NEAR(t.v[0], -128, 0);
    CHECK_NEAR(t.v[1], 127, 0);
    CHECK_NEAR(t.v[2], -1, 0);
    free(t.v);
    CHECK_INT(roundtrip("u1.npy", 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", i1, 3, &t, &err), 0);
    CHECK_NEAR(t.v[0], 128, 0);
    CHECK_NEAR(t.v[2], 255, 0);
    free(t.v);
    const unsigned char i2[] = {0xfe, 0xff, 0x34, 0x12};
    CHECK_INT(roundtrip("i2.npy", 1, "{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }", i2, 4, &t, &err), 0);
    CHECK_NEAR(t.v[0], -2, 0);
    CHECK_NEAR(t.v[1], 0x1234, 0);
    free(t.v);
    CHECK_INT(roundtrip("u2.npy", 1, "{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }", i2, 4, &t, &err), 0);
    CHECK_NEAR(t.v[0], 65534, 0);
    free(t.v);
    const unsigned char i4[] = {0xff, 0xff, 0xff, 0xff};
    CHECK_INT(roundtrip("i4.npy", 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", i4, 4, &t, &err), 0);
    CHECK_NEAR(t.v[0], -1, 0);
    free(t.v);
    CHECK_INT(roundtrip("u4.npy", 1, "{'descr': '<u4', 'fortran_order': False, 'shape': (1,), }", i4, 4, &t, &err), 0);
    CHECK_NEAR(t.v[0], 4294967295.0, 0);
    free(t.v);
    const unsigned char i8[] = {0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    CHECK_INT(roundtrip("i8.npy", 1, "{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }", i8, 8, &t, &err), 0);
    CHECK_NEAR(t.v[0], -3, 0);
    CHECK_INT(t.dtype, TENSORCMP_I64);
    free(t.v);
    CHECK_INT(roundtrip("u8.npy", 1, "{'descr': '<u8', 'fortran_order': False, 'shape': (1,), }", i8, 8, &t, &err), 0);
    CHECK_NEAR(t.v[0], 18446744073709551613.0, 0);
    CHECK_INT(t.dtype, TENSORCMP_U64);
    free(t.v);
    /* bfloat16 named explicitly: the high half of a float32 */
    const unsigned char bf[] = {0x80, 0x3f, 0x40, 0xc0};
    CHECK_INT(roundtrip("bf.npy", 1, "{'descr': 'bfloat16', 'fortran_order': False, 'shape': (2,), }", bf, 4, &t, &err), 0);
    CHECK_INT(t.dtype, TENSORCMP_BF16);
    CHECK_NEAR(t.v[0], 1.0, 0);
    CHECK_NEAR(t.v[1], -3.0, 0);
    free(t.v);
}

static void test_big_endian(void) {
    struct tensorcmp_tensor t;
    struct pt_error err;
    const unsigned char f2[] = {0x3c, 0x00, 0xc1, 0x00};
    CHECK_INT(roundtrip("bf2.npy", 1, "{'descr': '>f2', 'fortran_order': False, 'shape': (2,), }", f2, 4, &t, &err), 0);
    CHECK_NEAR(t.v[0], 1.0, 0);
    CHECK_NEAR(t.v[1], -2.5, 0);
    free(t.v);
    const unsigned char f4[] = {0x3f, 0xc0, 0x00, 0x00};   /* 1.5 */
    CHECK_INT(roundtrip("bf4.npy", 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", f4, 4, &t, &err), 0);
    CHECK_NEAR(t.v[0], 1.5, 0);
    free(t.v);
    const unsigned char f8[] = {0xc0, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18};   /* -pi */
    CHECK_INT(roundtrip("bf8.npy", 1, "{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }", f8, 8, &t, &err), 0);
    CHECK_NEAR(t.v[0], -3.141592653589793, 0);
    free(t.v);
    const unsigned char i2[] = {0xff, 0xfe};
    CHECK_INT(roundtrip("bi2.npy", 1, "{'descr': '>i2', 'fortran_order': False, 'shape': (1,), }", i2, 2, &t, &err), 0);
    CHECK_NEAR(t.v[0], -2, 0);
    free(t.v);
    CHECK_INT(roundtrip("bu2.npy", 1, "{'descr': '>u2', 'fortran_order': False, 'shape': (1,), }", i2, 2, &t, &err), 0);
    CHECK_NEAR(t.v[0], 65534, 0);
    free(t.v);
    const unsigned char i4[] = {0x00, 0x01, 0x02, 0x03};
    CHECK_INT(roundtrip("bi4.npy", 1, "{'descr': '>i4', 'fortran_order': False, 'shape': (1,), }", i4, 4, &t, &err), 0);
    CHECK_NEAR(t.v[0], 0x010203, 0);
    free(t.v);
    CHECK_INT(roundtrip("bu4.npy", 1, "{'descr': '>u4', 'fortran_order': False, 'shape': (1,), }", i4, 4, &t, &err), 0);
    CHECK_NEAR(t.v[0], 0x010203, 0);
    free(t.v);
    const unsigned char i8[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe};
    CHECK_INT(roundtrip("bi8.npy", 1, "{'descr': '>i8', 'fortran_order': False, 'shape': (1,), }", i8, 8, &t, &err), 0);
    CHECK_NEAR(t.v[0], -2, 0);
    free(t.v);
    CHECK_INT(roundtrip("bu8.npy", 1, "{'descr': '>u8', 'fortran_order': False, 'shape': (1,), }", i8, 8, &t, &err), 0);
    CHECK_NEAR(t.v[0], 18446744073709551614.0, 0);
    free(t.v);
}

static void test_versions_order_shapes(void) {
    struct tensorcmp_tensor t;
    struct pt_error err;
    const unsigned char u[] = {1, 2, 3, 4, 5, 6};
    for (int v = 1; v <= 3; v++) {
        char name[32];
        snprintf(name, sizeof name, "v%d.npy", v);
        CHECK_INT(roundtrip(name, v, "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }", u, 6, &t, &err), 0);
        CHECK_INT(t.ndim, 2);
        CHECK_INT(t.shape[0], 2);
        CHECK_INT(t.shape[1], 3);
        CHECK_NEAR(t.v[5], 6, 0);
        free(t.v);
    }
    /* fortran order (2,3): the file holds a00 a10 a01 a11 a02 a12 */
    CHECK_INT(roundtrip("fo.npy", 1, "{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3), }", u, 6, &t, &err), 0);
    const double want[] = {1, 3, 5, 2, 4, 6};
    for (int i = 0; i < 6; i++) CHECK_NEAR(t.v[i], want[i], 0);
    free(t.v);
    /* (2,3,2) in fortran order: C index of file element k */
    unsigned char w[12];
    for (int i = 0; i < 12; i++) w[i] = (unsigned char)i;
    CHECK_INT(roundtrip("fo3.npy", 1, "{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3, 2), }", w, 12, &t, &err), 0);
    /* element (i,j,k) is at fortran position i + 2j + 6k and C position 6i + 2j + k */
    int ok = 1;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 2; k++) ok &= t.v[6 * i + 2 * j + k] == i + 2 * j + 6 * k;
    CHECK(ok);
    free(t.v);
    /* double-quoted keys, no trailing comma, a Python 2 long */
    CHECK_INT(roundtrip("dq.npy", 1, "{\"descr\": \"|u1\", \"fortran_order\": False, \"shape\": (3L,)}", u, 3, &t, &err), 0);
    CHECK_INT(t.n, 3);
    free(t.v);
    /* 0-d */
    CHECK_INT(roundtrip("0d.npy", 1, "{'descr': '|u1', 'fortran_order': False, 'shape': (), }", u, 1, &t, &err), 0);
    CHECK_INT(t.ndim, 0);
    CHECK_INT(t.n, 1);
    CHECK_NEAR(t.v[0], 1, 0);
    free(t.v);
    /* empty */
    CHECK_INT(roundtrip("e.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 0), }", u, 0, &t, &err), 0);
    CHECK_INT(t.n, 0);
    CHECK_INT(t.ndim, 2);
    CHECK(t.v == NULL);
}

static void expect_bad(const char *name, int version, const char *dict, const void *data, size_t len, const char *what) {
    struct tensorcmp_tensor t;
    struct pt_error err;
    err.msg[0] = '\0';
    int rc = roundtrip(name, version, dict, data, len, &t, &err);
    CHECK_INT(rc, -1);
    CHECK_CONTAINS(err.msg, name);
    CHECK_CONTAINS(err.msg, what);
    CHECK(t.v == NULL);
}

static void test_hostile(void) {
    const unsigned char d[16] = {0};
    expect_bad("obj.npy", 1, "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", d, 16, "Python objects");
    expect_bad("str.npy", 1, "{'descr': '<U5', 'fortran_order': False, 'shape': (1,), }", d, 16, "strings");
    expect_bad("cplx.npy", 1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", d, 16, "complex");
    expect_bad("rec.npy", 1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", d, 16, "structured");
    expect_bad("short.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }", d, 16, "truncated");
    expect_bad("huge.npy", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (600000000,), }", d, 16, "truncated");
    expect_bad("ovf.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }",
               d, 16, "overflows");
    expect_bad("nodict.npy", 1, "['descr', '<f4']", d, 16, "not a Python dict");
    expect_bad("nokey.npy", 1, "{'descr': '<f4', 'shape': (1,), }", d, 16, "fortran_order");
    expect_bad("badshape.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, x), }", d, 16, "shape");
    expect_bad("badval.npy", 1, "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,), }", d, 16, "fortran_order");
    expect_bad("extra.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", d, 16, "unexpected key");
    expect_bad("unterminated.npy", 1, "{'descr': '<f4", d, 16, "descr");
    expect_bad("dims.npy", 1,
               "{'descr': '|u1', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1), }",
               d, 16, "dimensions");
    struct tensorcmp_tensor t;
    struct pt_error err;
    /* the header length points past the end */
    const char *p = path_of("hlen.npy");
    FILE *f = fopen(p, "wb");
    const unsigned char pre[] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0xff, 0xff, '{'};
    fwrite(pre, 1, sizeof pre, f);
    fclose(f);
    CHECK_INT(npy_read(p, &t, &err), -1);
    CHECK_CONTAINS(err.msg, "runs past the end");
    /* version 2 with a 4 GiB header length */
    p = path_of("hlen2.npy");
    f = fopen(p, "wb");
    const unsigned char pre2[] = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, 0xff, 0xff, 0xff, 0xff, '{'};
    fwrite(pre2, 1, sizeof pre2, f);
    fclose(f);
    CHECK_INT(npy_read(p, &t, &err), -1);
    CHECK_CONTAINS(err.msg, "runs past the end");
    /* unknown version, no magic, too short */
    p = path_of("v9.npy");
    f = fopen(p, "wb");
    const unsigned char pre9[] = {0x93, 'N', 'U', 'M', 'P', 'Y', 9, 0, 4, 0, '{', '}', ' ', '\n'};
    fwrite(pre9, 1, sizeof pre9, f);
    fclose(f);
    CHECK_INT(npy_read(p, &t, &err), -1);
    CHECK_CONTAINS(err.msg, "version 9.0");
    p = path_of("text.npy");
    pt_write(p, "just some text, long enough");
    CHECK_INT(npy_read(p, &t, &err), -1);
    CHECK_CONTAINS(err.msg, "magic");
    p = path_of("tiny.npy");
    pt_write(p, "\x93NUM");
    CHECK_INT(npy_read(p, &t, &err), -1);
    CHECK_CONTAINS(err.msg, "too short");
    /* missing, a folder, a FIFO (must not block) */
    CHECK_INT(npy_read(path_of("absent.npy"), &t, &err), -1);
    CHECK_CONTAINS(err.msg, "absent.npy");
    CHECK_INT(npy_read(dir, &t, &err), -1);
    CHECK_CONTAINS(err.msg, "folder");
    p = path_of("fifo.npy");
    CHECK_INT(mkfifo(p, 0600), 0);
    CHECK_INT(npy_read(p, &t, &err), -1);
    CHECK_CONTAINS(err.msg, "not a regular file");
}

static void test_loader(void) {
    /* data_name resolves to <rank folder>/dump_tensor_data/<data_name> */
    char d2[4400];
    snprintf(d2, sizeof d2, "%s/rank0/dump_tensor_data", dir);
    char cmd[4500];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", d2);
    CHECK_INT(system(cmd), 0);
    char p[4500];
    snprintf(p, sizeof p, "%s/x.input.0.npy", d2);
    const float v[] = {1, 2};
    CHECK_INT(npy_write_f32(p, "(2,)", v, 2), 0);
    struct tree *t = tree_new();
    char root[4400];
    snprintf(root, sizeof root, "%s/rank0", dir);
    t->path = strdup(root);
    int r = tree_add_record(t, "x", 1);
    struct tparam *q = tree_add_param(t, r);
    q->data_name = tree_str(t, "x.input.0.npy", 13);
    struct tensorcmp_tensor x;
    struct pt_error err;
    CHECK_INT(npy_tensor_load(NULL, t, q, &x, &err), 0);
    CHECK_INT(x.n, 2);
    free(x.v);
    q->data_name = tree_str(t, "../x.npy", 8);
    CHECK_INT(npy_tensor_load(NULL, t, q, &x, &err), -1);
    CHECK_CONTAINS(err.msg, "not a file name");
    q->data_name = tree_str(t, "x.input.0.pt", 12);
    CHECK_INT(npy_tensor_load(NULL, t, q, &x, &err), -1);
    CHECK_CONTAINS(err.msg, "PyTorch");
    /* setting up: .pt files fall back to statistics, .npy turn tensor mode on */
    snprintf(t->task, sizeof t->task, "tensor");
    struct cmp_opts o;
    memset(&o, 0, sizeof o);
    CHECK_STR(npy_setup_opts(&o, t, t), "tensor files are PyTorch .pt: comparing statistics");
    CHECK(o.tensor == NULL);
    q->data_name = tree_str(t, "x.input.0.npy", 13);
    CHECK(npy_setup_opts(&o, t, t) == NULL);
    CHECK(o.tensor == npy_tensor_load);
    snprintf(t->task, sizeof t->task, "statistics");
    CHECK(npy_setup_opts(&o, t, t) == NULL);
    CHECK(o.tensor == NULL);
    tree_free(t);
}

int main(void) {
    const char *d = pt_tmpdir("npy");
    if (!d) return 1;
    snprintf(dir, sizeof dir, "%s", d);
    RUN(test_dtypes_little);
    RUN(test_big_endian);
    RUN(test_versions_order_shapes);
    RUN(test_hostile);
    RUN(test_loader);
    PT_DONE();
}
