/* test_cmd_overflow: `probetop overflow` end to end, in process.
 *
 * Data: gen_dump.py with a planted NaN (the first occurrence must be the
 * planted node at the planted step and rank, critical, and the nodes
 * downstream high), and a copy of the real quick_start dump with NaN/Inf
 * planted by the test (one case per scene and per false-positive rule).
 * Both are cross-checked record by record against an independent Python
 * implementation of probetop-rules(7), OVERFLOW LEVELS (below), and the unmodified real
 * dump must come out clean, as msProbe's own overflow check found it
 * (fixtures/msprobe-outputs: no overflow_level on any node).  Skips when
 * the test data or Python is absent.  Inputs that describe no tensor
 * (placeholders, NULL statistics): test_cmd_overflow_notensor.c. */
#include <sys/stat.h>
#include <sys/wait.h>

#include "pt_test.h"
#include "pt_cmd_overflow.h"

static const char plant_py[] =
    "# Copies the quick_start dump to DST and plants NaN/Inf cases (one per rule).\n"
    "import json, os, shutil, sys\n"
    "src, dst = sys.argv[1], sys.argv[2]\n"
    "shutil.copytree(src, dst, copy_function=shutil.copyfile)\n"
    "for d, _, fs in os.walk(dst):   # the fixtures are read-only; the copy must not be\n"
    "    os.chmod(d, 0o755)\n"
    "    for f in fs:\n"
    "        os.chmod(os.path.join(d, f), 0o644)\n"
    "def T(mx=1.0, mn=-1.0, mean=0.0, norm=2.0):\n"
    "    return {\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [4], \"Max\": mx, \"Min\": mn,\n"
    "            \"Mean\": mean, \"Norm\": norm, \"requires_grad\": False}\n"
    "inf, nan = float(\"inf\"), float(\"nan\")\n"
    "def edit(step, fn):\n"
    "    p = \"%s/step%d/proc2016/dump.json\" % (dst, step)\n"
    "    d = json.load(open(p))\n"
    "    fn(d[\"data\"])\n"
    "    with open(p, \"w\") as f:\n"
    "        json.dump(d, f, indent=1)\n"
    "def s0(data):\n"
    "    data[\"Functional.relu.0.forward\"][\"output\"][0][\"Max\"] = inf             # critical\n"
    "    data[\"Functional.max_pool2d.0.forward\"][\"input_args\"][0][\"Mean\"] = nan  # medium\n"
    "    data[\"Functional.linear.0.backward\"][\"input\"][0][\"Max\"] = nan           # medium (backward input)\n"
    "    data[\"Torch.empty.0.forward\"] = {\"input_args\": [], \"input_kwargs\": {}, \"output\": [T(mx=nan)]}\n"
    "    data[\"Distributed.recv.0.forward\"] = {\"input_args\": [T(mn=-inf)], \"input_kwargs\": {}, \"output\": []}\n"
    "    data[\"Distributed.recv.1.forward\"] = {\"input_args\": [T(), T(mn=-inf)], \"input_kwargs\": {}, \"output\": []}\n"
    "    data[\"Distributed.recv.2.forward\"] = {\"input_args\": [], \"input_kwargs\": {\"tensor\": T(mean=nan)}, \"output\": []}\n"
    "    data[\"Tensor.masked_fill_.0.forward\"] = {\"input_args\": [T(mx=inf), T()], \"input_kwargs\": {}, \"output\": [T(mx=inf)]}\n"
    "    data[\"Torch.cat.0.forward\"] = {\"input_args\": [[T(mx=nan), T()]], \"input_kwargs\": {}, \"output\": [T(mx=nan)]}\n"
    "    data[\"Torch.empty_like.0.forward\"] = {\"input_args\": [T()], \"input_kwargs\": {}, \"output\": [T(), [T(mean=nan)]]}\n"
    "    data[\"Functional.layer_norm.0.forward\"] = {\"input_args\": [T()], \"input_kwargs\": {\"weight\": T(mx=inf)}, \"output\": [T()]}\n"
    "    data[\"Functional.we\\\"ird,na\\tme\\u00e9.0.forward\"] = {\"input_args\": [T()], \"input_kwargs\": {}, \"output\": [T(mx=nan)]}\n"
    "def s1(data):\n"
    "    r = data[\"Functional.conv2d.1.forward\"]\n"
    "    r[\"input_args\"][0][\"Min\"] = -inf                                         # high\n"
    "    r[\"output\"][0][\"Max\"] = nan\n"
    "    r = data[\"Functional.linear.0.forward\"]                                  # high: numeric jump\n"
    "    mx = max(a[\"Norm\"] for a in r[\"input_args\"] if isinstance(a, dict) and a.get(\"type\") == \"torch.Tensor\")\n"
    "    r[\"output\"][0][\"Norm\"] = mx * 1000\n"
    "edit(0, s0)\n"
    "edit(1, s1)\n";

static const char reference_py[] =
    "# Independent reference of probetop-rules(7), OVERFLOW LEVELS (levels + false-positive rules) in\n"
    "# Python, to cross-check the C reader and classifier: prints step,rank,pos,name,level\n"
    "# for records holding a NaN/Inf, and jump,name,records,steps,ranks per name of the\n"
    "# records flagged by the numeric jump alone (the listing groups those).\n"
    "import json, os, sys, re\n"
    "RULES = {\n"
    " 'torch.empty': ([], [], [0]), 'torch.empty_like': ([], [], [0]), 'torch.empty_strided': ([], [], [0]),\n"
    " 'distributed.recv': ([0], ['tensor'], []),\n"
    " 'distributed.all_gather': ([0], [], []), 'distributed._reduce_scatter_base': ([0], [], []),\n"
    " 'distributed.all_gather_into_tensor': ([0], [], []), 'distributed.reduce_scatter_tensor': ([0], [], []),\n"
    " 'tensor.masked_fill_': ([0], [], []), 'distributed.reduce_scatter': ([0], ['output'], []),\n"
    "}\n"
    "def plain(x):\n"
    "    return isinstance(x, dict) and any(str(x.get(k)).lower() in ('inf', '-inf', 'nan') for k in ('Max', 'Min', 'Mean'))\n"
    "def anom(x):\n"
    "    if isinstance(x, list): return any(anom(e) for e in x)\n"
    "    return plain(x)\n"
    "def norms(xs):\n"
    "    out = []\n"
    "    for x in xs:\n"
    "        if isinstance(x, dict) and x.get('type') == 'torch.Tensor':\n"
    "            n = x.get('Norm')\n"
    "            if isinstance(n, (int, float)) and not isinstance(n, bool) and n == n: out.append(float(n))\n"
    "    return out\n"
    "def level(name, r):\n"
    "    if not isinstance(r, dict): return None, False\n"
    "    args = r.get('input_args', r.get('input', [])) or []\n"
    "    kw = r.get('input_kwargs', {}) or {}\n"
    "    outs = r.get('output', []) or []\n"
    "    if not isinstance(args, list): args = []\n"
    "    if not isinstance(outs, list): outs = []\n"
    "    if not isinstance(kw, dict): kw = {}\n"
    "    bi = any(anom(a) for a in args) or any(anom(v) for v in kw.values())\n"
    "    bo = any(anom(o) for o in outs)\n"
    "    jump = False\n"
    "    if not bi and bo: lv = 'critical'\n"
    "    elif bi and bo: lv = 'high'\n"
    "    elif bi: lv = 'medium'\n"
    "    else:\n"
    "        ni, no = norms(args + list(kw.values())), norms(outs)\n"
    "        if not ni or not no: return None, False\n"
    "        mi, mo = max(ni), max(no)\n"
    "        if mi == 0: j = mo > 100\n"
    "        else:\n"
    "            j = (mo / mi) > 100 if mi != float('inf') else False\n"
    "        if not j: return None, False\n"
    "        lv = 'high'\n"
    "        jump = True\n"
    "    key = '.'.join(name.split('.')[:2]).lower()\n"
    "    if key in RULES:\n"
    "        idx, names, oidx = RULES[key]\n"
    "        ok = True\n"
    "        if idx or names:\n"
    "            ok = ok and all(i in idx for i, a in enumerate(args) if plain(a))\n"
    "            ok = ok and all(k in names for k, v in kw.items() if plain(v))\n"
    "        if oidx:\n"
    "            ok = ok and all(i in oidx for i, o in enumerate(outs) if plain(o))\n"
    "        if ok: return None, False\n"
    "    return lv, jump\n"
    "root = sys.argv[1]\n"
    "res, jumps = [], {}\n"
    "for sd in os.listdir(root):\n"
    "    m = re.fullmatch(r'step(\\d+)', sd)\n"
    "    if not m: continue\n"
    "    for rd in os.listdir(os.path.join(root, sd)):\n"
    "        m2 = re.fullmatch(r'(?:rank|proc)(\\d+)', rd)\n"
    "        if not m2: continue\n"
    "        p = os.path.join(root, sd, rd, 'dump.json')\n"
    "        if not os.path.exists(p): continue\n"
    "        data = json.load(open(p))['data']\n"
    "        rank = int(m2.group(1)) if rd.startswith('rank') else 0\n"
    "        for pos, (k, r) in enumerate(data.items()):\n"
    "            lv, jump = level(k, r)\n"
    "            if lv and jump: jumps.setdefault(k, []).append((int(m.group(1)), rank))\n"
    "            elif lv: res.append((int(m.group(1)), rank, pos, k, lv))\n"
    "res.sort()\n"
    "for t in res: print('%d,%d,%d,%s,%s' % t)\n"
    "for k, v in sorted(jumps.items()):\n"
    "    print('jump,%s,%d,%d,%d' % (k, len(v), len(set(s for s, _ in v)), len(set(r for _, r in v))))\n";

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Runs python with a script (written to the scratch dir) and arguments;
 * its stdout goes to out_file when not NULL.  Returns the exit status. */
static int run_python(const char *script, const char *name, const char *args, const char *out_file) {
    char sp[4200], cmd[13000];
    snprintf(sp, sizeof sp, "%s/%s", pt_tmpdir_path, name);
    if (pt_write(sp, script) != 0) return -1;
    snprintf(cmd, sizeof cmd, "'%s' '%s' %s%s%s%s", getenv("PT_PYTHON"), sp, args, out_file ? " > '" : "",
             out_file ? out_file : "", out_file ? "'" : "");
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Lines "step,rank,pos,name,level" of the JSON's NaN/Inf rows and
 * "jump,name,records,steps,ranks" of its numeric-jump rows, sorted, joined. */
static char *entries_key(const cJSON *root) {
    const cJSON *ents = cJSON_GetObjectItemCaseSensitive(root, "entries");
    int n = cJSON_GetArraySize(ents);
    char **lines = calloc((size_t)n + 1, sizeof *lines);
    size_t total = 1;
    for (int i = 0; i < n; i++) {
        const cJSON *e = cJSON_GetArrayItem(ents, i);
        char buf[2048];
        if (!strcmp(cJSON_GetObjectItem(e, "kind")->valuestring, "numeric_jump"))
            snprintf(buf, sizeof buf, "jump,%s,%d,%d,%d\n", cJSON_GetObjectItem(e, "name")->valuestring,
                     cJSON_GetObjectItem(e, "records")->valueint, cJSON_GetObjectItem(e, "steps")->valueint,
                     cJSON_GetObjectItem(e, "ranks")->valueint);
        else
            snprintf(buf, sizeof buf, "%d,%d,%d,%s,%s\n", cJSON_GetObjectItem(e, "step")->valueint,
                     cJSON_GetObjectItem(e, "rank")->valueint, cJSON_GetObjectItem(e, "pos")->valueint,
                     cJSON_GetObjectItem(e, "name")->valuestring, cJSON_GetObjectItem(e, "level")->valuestring);
        lines[i] = strdup(buf);
        total += strlen(buf);
    }
    qsort(lines, (size_t)n, sizeof *lines, cmp_str);
    char *s = calloc(total, 1);
    for (int i = 0; i < n; i++) {
        strcat(s, lines[i]);
        free(lines[i]);
    }
    free(lines);
    return s;
}

/* The reference's lines, sorted the same way. */
static char *reference_key(const char *dump_root) {
    char out[4200], args[4200];
    snprintf(out, sizeof out, "%s/reference.txt", pt_tmpdir_path);
    snprintf(args, sizeof args, "'%s'", dump_root);
    if (run_python(reference_py, "reference.py", args, out) != 0) return NULL;
    char *text = pt_slurp(out);
    if (!text) return NULL;
    size_t n = 0, cap = 64;
    char **lines = malloc(cap * sizeof *lines);
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (n == cap) lines = realloc(lines, (cap *= 2) * sizeof *lines);
        lines[n++] = l;
    }
    qsort(lines, n, sizeof *lines, cmp_str);
    size_t total = 1;
    for (size_t i = 0; i < n; i++) total += strlen(lines[i]) + 1;
    char *s = calloc(total, 1);
    for (size_t i = 0; i < n; i++) {
        strcat(s, lines[i]);
        strcat(s, "\n");
    }
    free(lines);
    free(text);
    return s;
}

/* The level of entry `name` at step/rank in the JSON, or "" when absent. */
static const char *level_of(const cJSON *root, int step, int rank, const char *name) {
    const cJSON *e;
    cJSON_ArrayForEach(e, get(root, "entries"))
        if (get_int(e, "step") == step && get_int(e, "rank") == rank && !strcmp(get_str(e, "name"), name))
            return get_str(e, "level");
    return "";
}

/* ---- tests ---- */

static void test_usage(void) {
    char *out;
    CHECK_INT(run_overflow(&out, NULL), EXIT_USAGE);
    free(out);
    CHECK_INT(run_overflow(&out, "x", "--format", "xml", NULL), EXIT_USAGE);
    free(out);
    CHECK_INT(run_overflow(&out, "x", "--level", "low", NULL), EXIT_USAGE);
    free(out);
    CHECK_INT(run_overflow(&out, "x", "--limit", "-3", NULL), EXIT_USAGE);
    free(out);
    CHECK_INT(run_overflow(&out, "x", "--limit", NULL), EXIT_USAGE);
    free(out);
    CHECK_INT(run_overflow(&out, "x", "y", NULL), EXIT_USAGE);
    free(out);
    CHECK_INT(run_overflow(&out, "x", "--bogus", NULL), EXIT_USAGE);
    free(out);
    char missing[4200];
    snprintf(missing, sizeof missing, "%s/does-not-exist", pt_tmpdir_path);
    CHECK_INT(run_overflow(&out, missing, NULL), EXIT_USAGE);
    CHECK_STR(out, "");   /* the message goes to stderr */
    free(out);
    /* A file that is no dump at all. */
    char junk[4200];
    snprintf(junk, sizeof junk, "%s/junk.json", pt_tmpdir_path);
    pt_write(junk, "{\"data\": [1, 2");
    CHECK_INT(run_overflow(&out, junk, NULL), EXIT_USAGE);
    free(out);
}

/* The real dump as shipped: msProbe's overflow check found nothing. */
static void test_quick_start_clean(void) {
    const char *qs = pt_fixture("examples/quick_start/gpu_dump");
    if (!qs) SKIP("no quick_start fixture");
    char *out;
    CHECK_INT(run_overflow(&out, qs, "--format", "json", NULL), EXIT_OK);
    cJSON *root = cJSON_Parse(out);
    CHECK(root != NULL);
    if (root) {
        CHECK(cJSON_IsNull(get(root, "first")));
        CHECK_INT(get_int(get(root, "counts"), "critical"), 0);
        CHECK_INT(get_int(get(root, "counts"), "high"), 0);
        CHECK_INT(get_int(get(root, "counts"), "medium"), 0);
        CHECK_INT(cJSON_GetArraySize(get(root, "entries")), 0);
        CHECK(cJSON_IsTrue(get(root, "levels")));
    }
    cJSON_Delete(root);
    free(out);
    CHECK_INT(run_overflow(&out, qs, NULL), EXIT_OK);
    CHECK_CONTAINS(out, "no NaN or Inf found");
    free(out);
}

static void test_gen_dump_planted(void) {
    const char *sh = pt_shared();
    char gen[4200], dir[4200], args[13000];
    if (!sh || !have_python()) SKIP("no test data (PT_SHARED: run through ctest) or no python");
    snprintf(gen, sizeof gen, "%s/tools/gen_dump.py", sh);
    if (access(gen, R_OK) != 0) SKIP("no gen_dump.py");
    snprintf(dir, sizeof dir, "%s/gen", pt_tmpdir_path);
    snprintf(args, sizeof args,
             "'%s' '%s' --out '%s' --steps 3 --ranks 2 --layers 2 --seed 3 "
             "--nan 1:1:layers.1.self_attention --quiet",
             getenv("PT_PYTHON"), gen, dir);
    if (system(args) != 0) {
        CHECK(!"gen_dump.py failed");
        return;
    }
    char *out;
    int rc = run_overflow(&out, dir, "--format", "json", NULL);
    CHECK_INT(rc, EXIT_FOUND);
    cJSON *root = cJSON_Parse(out);
    CHECK(root != NULL);
    if (!root) {
        fprintf(stderr, "output: %.2000s\n", out);
        free(out);
        return;
    }
    const cJSON *first = get(root, "first");
    CHECK(cJSON_IsObject(first));
    CHECK_STR(get_str(first, "name"), "Functional.linear.4.forward");   /* the planted op */
    CHECK_INT(get_int(first, "step"), 1);
    CHECK_INT(get_int(first, "rank"), 1);
    CHECK_STR(get_str(first, "level"), "critical");
    CHECK(cJSON_IsNumber(get(first, "micro_step")));

    /* Every critical is the planted op or a module enclosing it (its own
     * record: clean input, NaN output), all on step 1 rank 1; every API
     * node after it is high: it consumed the NaN and passed it on.  Other
     * steps and ranks hold no NaN/Inf: only the numeric-jump scene (a sum's
     * output Norm is far above its input's) flags records there, listed
     * last, one row per name.  The rows go criticals, other NaN/Inf
     * records, numeric-jump groups, never back. */
    const cJSON *e;
    int ncrit = 0, napi_after = 0, seen_first = 0, other_place = 0, part = 0;
    long jump_records = 0;
    cJSON_ArrayForEach(e, get(root, "entries")) {
        const char *name = get_str(e, "name"), *lv = get_str(e, "level");
        int here = get_int(e, "step") == 1 && get_int(e, "rank") == 1;
        int p = !strcmp(get_str(e, "kind"), "numeric_jump") ? 2 : !strcmp(lv, "critical") ? 0 : 1;
        if (p < part) fprintf(stderr, "out of order: %s %s after part %d\n", lv, name, part);
        CHECK(p >= part);
        part = p;
        if (p == 2) {
            other_place++;
            jump_records += get_int(e, "records");
            CHECK_STR(lv, "high");
            CHECK(!strncmp(get_str(e, "what"), "Norm jump ", 10));
            /* the sums, flagged on every step and rank */
            CHECK(strstr(name, "sum") != NULL);
            CHECK(get_int(e, "steps") == 3 && get_int(e, "ranks") == 2);
            continue;
        }
        CHECK_STR(get_str(e, "kind"), "nonfinite");
        CHECK(here);
        if (!strcmp(lv, "critical")) {
            ncrit++;
            CHECK(!strcmp(name, "Functional.linear.4.forward") || !strncmp(name, "Module.", 7));
        }
        if (seen_first && strncmp(name, "Module.", 7) != 0) {
            napi_after++;
            if (strcmp(lv, "high") != 0) fprintf(stderr, "not high: %s %s\n", name, lv);
            CHECK_STR(lv, "high");
        }
        if (!strcmp(name, "Functional.linear.4.forward")) seen_first = 1;
    }
    CHECK(other_place > 0);      /* the sums are flagged on every step and rank */
    CHECK(ncrit >= 2);           /* the op and at least its linear_qkv module */
    CHECK(napi_after > 20);
    CHECK_STR(level_of(root, 1, 1, "Module.module.module.decoder.layers.1.self_attention.linear_qkv."
                                   "ColumnParallelLinear.forward.0"), "critical");
    CHECK_STR(level_of(root, 1, 1, "Functional.linear.4.forward"), "critical");
    const cJSON *counts = get(root, "counts");
    CHECK_INT(get_int(counts, "critical"), ncrit);
    CHECK_INT(get_int(counts, "critical") + get_int(counts, "high") + get_int(counts, "medium"),
              get_int(root, "matched"));
    CHECK_INT(get_int(counts, "numeric_jump"), jump_records);
    CHECK_INT(get_int(root, "rows"), cJSON_GetArraySize(get(root, "entries")));
    CHECK_INT(get_int(root, "rows"), get_int(root, "matched") - jump_records + other_place);
    /* the gate: every NaN/Inf record, none of the jumps */
    CHECK_STR(get_str(get(root, "gate"), "fail_on"), "critical");
    CHECK_INT(get_int(get(root, "gate"), "failing"), get_int(root, "matched") - jump_records);
    CHECK_INT(get_int(get(root, "gate"), "exit"), EXIT_FOUND);
    /* The criticals are all on step 1 and rank 1. */
    const cJSON *ps = get(root, "per_step"), *pr = get(root, "per_rank");
    CHECK_INT(cJSON_GetArraySize(ps), 3);
    CHECK_INT(cJSON_GetArraySize(pr), 2);
    for (int i = 0; i < cJSON_GetArraySize(ps); i++) {
        const cJSON *t = cJSON_GetArrayItem(ps, i);
        CHECK_INT(get_int(t, "step"), i);
        CHECK_INT(get_int(t, "critical"), i == 1 ? ncrit : 0);
    }
    for (int i = 0; i < cJSON_GetArraySize(pr); i++) {
        const cJSON *t = cJSON_GetArrayItem(pr, i);
        CHECK_INT(get_int(t, "rank"), i);
        CHECK_INT(get_int(t, "critical"), i == 1 ? ncrit : 0);
    }

    /* Record by record, the same levels as the reference. */
    char *mine = entries_key(root), *ref = reference_key(dir);
    CHECK(ref != NULL);
    if (ref) CHECK_STR(mine, ref);
    free(mine);
    free(ref);
    long total = get_int(root, "matched"), nrows = get_int(root, "rows");
    cJSON_Delete(root);
    free(out);

    /* --level critical: only the criticals count and are listed. */
    CHECK_INT(run_overflow(&out, dir, "--format", "json", "--level", "critical", NULL), EXIT_FOUND);
    root = cJSON_Parse(out);
    if (root) {
        CHECK_INT(get_int(root, "matched"), ncrit);
        CHECK_INT(cJSON_GetArraySize(get(root, "entries")), ncrit);
        cJSON_ArrayForEach(e, get(root, "entries")) CHECK_STR(get_str(e, "level"), "critical");
        CHECK_STR(get_str(get(root, "first"), "name"), "Functional.linear.4.forward");
    }
    cJSON_Delete(root);
    free(out);

    /* --limit: the first N in order, flagged as truncated. */
    CHECK_INT(run_overflow(&out, dir, "--format", "json", "--limit", "3", NULL), EXIT_FOUND);
    root = cJSON_Parse(out);
    if (root) {
        CHECK_INT(cJSON_GetArraySize(get(root, "entries")), 3);
        CHECK(cJSON_IsTrue(get(root, "truncated")));
        CHECK_INT(get_int(root, "matched"), total);
    }
    cJSON_Delete(root);
    free(out);

    /* CSV: a header and one line per row, the planted op first. */
    CHECK_INT(run_overflow(&out, dir, "--format=csv", NULL), EXIT_FOUND);
    CHECK(!strncmp(out, "level,step,micro_step,rank,pos,name,what,kind,records,steps,ranks\n"
                        "critical,1,0,1,45,Functional.linear.4.forward,out.0 Max=nan,nonfinite,1,1,1\n", 142));
    long rows = 0;
    for (const char *p = out; *p; p++) rows += *p == '\n';
    CHECK_INT(rows, nrows + 1);
    CHECK_CONTAINS(out, ",Tensor.sum.0.forward,Norm jump ");
    CHECK_CONTAINS(out, ",numeric_jump,");
    CHECK_CONTAINS(out, ",Functional.linear.4.forward,out.0 Max=nan");
    free(out);

    /* Text: the first occurrence and the counts. */
    CHECK_INT(run_overflow(&out, dir, NULL), EXIT_FOUND);
    CHECK_CONTAINS(out, "first occurrence: critical at step 1");
    CHECK_CONTAINS(out, "rank 1");
    CHECK_CONTAINS(out, "Functional.linear.4.forward");
    CHECK_CONTAINS(out, "per rank:");
    CHECK_CONTAINS(out, "--limit 0 lists all");
    CHECK_CONTAINS(out, "gate (--fail-on critical): ");
    free(out);
}

/* gen_dump.py into the scratch dir (3 steps, 2 ranks, 2 layers) with extra
 * arguments; 0 ok, -1 when the test data or Python is absent (skip), 1 failed. */
static int gen_dump(const char *dir, const char *extra) {
    const char *sh = pt_shared();
    char gen[4200], args[13000];
    if (!sh || !have_python()) return -1;
    snprintf(gen, sizeof gen, "%s/tools/gen_dump.py", sh);
    if (access(gen, R_OK) != 0) return -1;
    snprintf(args, sizeof args, "'%s' '%s' --out '%s' --steps 3 --ranks 2 --layers 2 --seed 3 %s --quiet",
             getenv("PT_PYTHON"), gen, dir, extra);
    return system(args) == 0 ? 0 : 1;
}

/* Steps far apart (a table over their range would be most of it empty):
 * per_step still lists each step once, ascending, with its counts. */
static void test_steps_far_apart(void) {
    char dir[4200], from[4300], to[4300];
    snprintf(dir, sizeof dir, "%s/far", pt_tmpdir_path);
    int g = gen_dump(dir, "--nan 1:1:layers.1.self_attention");
    if (g < 0) SKIP("no test data (PT_SHARED: run through ctest) or no python");
    CHECK_INT(g, 0);
    snprintf(from, sizeof from, "%s/step2", dir);
    snprintf(to, sizeof to, "%s/step99999", dir);
    CHECK_INT(rename(from, to), 0);
    char *out;
    CHECK_INT(run_overflow(&out, dir, "--format", "json", NULL), EXIT_FOUND);
    cJSON *root = cJSON_Parse(out);
    CHECK(root != NULL);
    if (root) {
        const cJSON *ps = get(root, "per_step");
        static const int want[] = {0, 1, 99999};
        CHECK_INT(cJSON_GetArraySize(ps), 3);
        for (int i = 0; i < cJSON_GetArraySize(ps) && i < 3; i++) {
            const cJSON *t = cJSON_GetArrayItem(ps, i);
            CHECK_INT(get_int(t, "step"), want[i]);
            CHECK_INT(get_int(t, "critical") > 0, i == 1);
        }
        CHECK_INT(cJSON_GetArraySize(get(root, "per_rank")), 2);
    }
    cJSON_Delete(root);
    free(out);
}

/* The CI gate (probetop(1), EXIT STATUS): a healthy run, whose sums the numeric-jump
 * heuristic marks high on every step and rank, passes by default and fails
 * with --fail-on high; a run with a NaN fails.  --level only filters the
 * listing.  A bad --fail-on is a usage error with a message. */
static void test_gate(void) {
    char clean[4200], nan[4200];
    snprintf(clean, sizeof clean, "%s/gate-clean", pt_tmpdir_path);
    snprintf(nan, sizeof nan, "%s/gate-nan", pt_tmpdir_path);
    int g = gen_dump(clean, "");
    if (g < 0) SKIP("no test data (PT_SHARED: run through ctest) or no python");
    CHECK_INT(g, 0);
    CHECK_INT(gen_dump(nan, "--nan 1:1:layers.1.self_attention"), 0);

    /* The healthy run: nothing but numeric jumps of the sums, listed as
     * groups (one per name, every step and rank), exit 0. */
    char *out;
    CHECK_INT(run_overflow(&out, clean, "--format", "json", NULL), EXIT_OK);
    cJSON *root = cJSON_Parse(out);
    CHECK(root != NULL);
    if (root) {
        const cJSON *c = get(root, "counts");
        CHECK_INT(get_int(c, "critical"), 0);
        CHECK_INT(get_int(c, "medium"), 0);
        CHECK(get_int(c, "high") > 0);
        CHECK_INT(get_int(c, "numeric_jump"), get_int(c, "high"));   /* every high is the heuristic */
        CHECK(cJSON_IsNull(get(root, "first")));                      /* no NaN/Inf */
        CHECK_INT(get_int(get(root, "gate"), "failing"), 0);
        CHECK_INT(get_int(get(root, "gate"), "exit"), 0);
        int tensor_sum = 0, torch_sum = 0;
        long records = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, get(root, "entries")) {
            CHECK_STR(get_str(e, "kind"), "numeric_jump");
            CHECK_STR(get_str(e, "level"), "high");
            CHECK_INT(get_int(e, "steps"), 3);
            CHECK_INT(get_int(e, "ranks"), 2);
            records += get_int(e, "records");
            tensor_sum += !strncmp(get_str(e, "name"), "Tensor.sum.", 11);
            torch_sum += !strncmp(get_str(e, "name"), "Torch.sum.", 10);
        }
        CHECK(tensor_sum >= 1);
        CHECK(torch_sum >= 1);
        CHECK_INT(records, get_int(c, "high"));
        CHECK_INT(cJSON_GetArraySize(get(root, "entries")), tensor_sum + torch_sum);
    }
    cJSON_Delete(root);
    free(out);
    CHECK_INT(run_overflow(&out, clean, NULL), EXIT_OK);
    CHECK_CONTAINS(out, "gate (--fail-on critical): nothing at or above it: exit 0");
    CHECK_CONTAINS(out, "no NaN or Inf found");
    CHECK_CONTAINS(out, "numeric jump");
    free(out);
    CHECK_INT(run_overflow(&out, clean, "--fail-on", "critical", NULL), EXIT_OK);
    free(out);
    CHECK_INT(run_overflow(&out, clean, "--level", "high", NULL), EXIT_OK);   /* lists, does not gate */
    free(out);
    CHECK_INT(run_overflow(&out, clean, "--fail-on", "high", NULL), EXIT_FOUND);
    CHECK_CONTAINS(out, "gate (--fail-on high): ");
    free(out);
    CHECK_INT(run_overflow(&out, clean, "--fail-on=medium", "--format", "csv", NULL), EXIT_FOUND);
    free(out);

    /* The NaN run fails by default, and whatever the listing filter. */
    CHECK_INT(run_overflow(&out, nan, NULL), EXIT_FOUND);
    free(out);
    CHECK_INT(run_overflow(&out, nan, "--fail-on", "high", "--format", "json", NULL), EXIT_FOUND);
    free(out);
    CHECK_INT(run_overflow(&out, nan, "--level", "critical", "--format", "csv", NULL), EXIT_FOUND);
    free(out);

    /* A bad value: exit 2 and a message naming the option and the value. */
    CHECK_INT(run_overflow(&out, clean, "--fail-on", "low", NULL), EXIT_USAGE);
    CHECK_STR(out, "");
    free(out);
    CHECK_INT(run_overflow(&out, clean, "--fail-on", NULL), EXIT_USAGE);
    free(out);
    const char *bin = getenv("PT_BIN");
    if (bin && access(bin, X_OK) == 0) {
        char cmd[13000], errf[4200];
        snprintf(errf, sizeof errf, "%s/fail-on.err", pt_tmpdir_path);
        snprintf(cmd, sizeof cmd, "'%s' overflow '%s' --fail-on CRITICAL >/dev/null 2>'%s'", bin, clean, errf);
        int st = system(cmd);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == EXIT_USAGE);
        char *msg = pt_slurp(errf);
        CHECK_CONTAINS(msg, "probetop overflow: --fail-on must be critical (any NaN/Inf), high or medium, not 'CRITICAL'");
        free(msg);
    }
}

/* A copy of the real dump with NaN/Inf planted, one case per scene and per
 * false-positive rule. */
static void test_quick_start_planted(void) {
    const char *qs = pt_fixture("examples/quick_start/gpu_dump");
    if (!qs || !have_python()) SKIP("no quick_start fixture or no python");
    char dir[4200], args[9000];
    snprintf(dir, sizeof dir, "%s/qs", pt_tmpdir_path);
    snprintf(args, sizeof args, "'%s' '%s'", qs, dir);
    if (run_python(plant_py, "plant.py", args, NULL) != 0) {
        CHECK(!"plant.py failed");
        return;
    }
    char *out;
    CHECK_INT(run_overflow(&out, dir, "--format", "json", NULL), EXIT_FOUND);
    cJSON *root = cJSON_Parse(out);
    CHECK(root != NULL);
    if (!root) {
        free(out);
        return;
    }
    /* scene 1: clean input, inf output */
    CHECK_STR(level_of(root, 0, 0, "Functional.relu.0.forward"), "critical");
    /* scene 3: nan input absorbed; a backward record's "input"; a kwarg */
    CHECK_STR(level_of(root, 0, 0, "Functional.max_pool2d.0.forward"), "medium");
    CHECK_STR(level_of(root, 0, 0, "Functional.linear.0.backward"), "medium");
    CHECK_STR(level_of(root, 0, 0, "Functional.layer_norm.0.forward"), "medium");
    /* scene 2, and through a nested list input */
    CHECK_STR(level_of(root, 1, 0, "Functional.conv2d.1.forward"), "high");
    CHECK_STR(level_of(root, 0, 0, "Torch.cat.0.forward"), "high");
    /* scene 4: output Norm 1000x the input Norm */
    CHECK_STR(level_of(root, 1, 0, "Functional.linear.0.forward"), "high");
    /* false positives dropped */
    CHECK_STR(level_of(root, 0, 0, "Torch.empty.0.forward"), "");
    CHECK_STR(level_of(root, 0, 0, "Torch.empty_like.0.forward"), "");   /* nested: not plain */
    CHECK_STR(level_of(root, 0, 0, "Distributed.recv.0.forward"), "");
    CHECK_STR(level_of(root, 0, 0, "Distributed.recv.2.forward"), "");   /* kwarg tensor */
    CHECK_STR(level_of(root, 0, 0, "Tensor.masked_fill_.0.forward"), "");
    /* ... but not what the rule does not cover */
    CHECK_STR(level_of(root, 0, 0, "Distributed.recv.1.forward"), "medium");
    /* a hostile name comes through intact */
    CHECK_STR(level_of(root, 0, 0, "Functional.we\"ird,na\tme\xc3\xa9.0.forward"), "critical");
    /* nothing else: the planted records do not spread in a static dump */
    CHECK_INT(cJSON_GetArraySize(get(root, "entries")), 9);
    /* the first occurrence: the earliest critical */
    CHECK_STR(get_str(get(root, "first"), "name"), "Functional.relu.0.forward");
    CHECK_INT(get_int(get(root, "first"), "step"), 0);
    CHECK_INT(get_int(get(root, "first"), "rank"), 0);
    CHECK_STR(level_of(root, 0, 0, "Functional.relu.0.forward"), "critical");
    /* the description names the element and statistic */
    const cJSON *e;
    cJSON_ArrayForEach(e, get(root, "entries"))
        if (!strcmp(get_str(e, "name"), "Functional.relu.0.forward")) CHECK_STR(get_str(e, "what"), "out.0 Max=inf");

    char *mine = entries_key(root), *ref = reference_key(dir);
    CHECK(ref != NULL);
    if (ref) CHECK_STR(mine, ref);
    free(mine);
    free(ref);
    cJSON_Delete(root);
    free(out);

    /* --level high: the criticals and the highs count; exit 1. */
    CHECK_INT(run_overflow(&out, dir, "--format", "json", "--level", "high", NULL), EXIT_FOUND);
    root = cJSON_Parse(out);
    if (root) CHECK_INT(get_int(root, "matched"), 5);
    cJSON_Delete(root);
    free(out);

    /* CSV quotes the hostile name; text escapes its control byte. */
    CHECK_INT(run_overflow(&out, dir, "--format", "csv", NULL), EXIT_FOUND);
    CHECK_CONTAINS(out, ",\"Functional.we\"\"ird,na\tme\xc3\xa9.0.forward\",out.0 Max=nan,nonfinite,1,1,1\n");
    free(out);
    CHECK_INT(run_overflow(&out, dir, "--limit", "0", NULL), EXIT_FOUND);
    CHECK_CONTAINS(out, "Functional.we\"ird,na\\tme\xc3\xa9.0.forward");
    CHECK(strchr(out, '\t') == NULL);
    free(out);
}

/* Monitor data: no levels; NaN/Inf cells are listed. */
/* A gate never passes on what it could not read (probetop(1), EXIT
 * STATUS): a rank's dump.json cut in half an hour ago, or a monitor CSV
 * whose last row was cut, gives exit 3 with the files named, unless
 * --partial-ok; a NaN in what was read still fails (exit 1). */
static void test_incomplete(void) {
    char clean[4200], nan[4200], cmd[13000], cut[4300];
    snprintf(clean, sizeof clean, "%s/inc-clean", pt_tmpdir_path);
    snprintf(nan, sizeof nan, "%s/inc-nan", pt_tmpdir_path);
    int g = gen_dump(clean, "");
    if (g < 0) SKIP("no test data (PT_SHARED: run through ctest) or no python");
    CHECK_INT(g, 0);
    CHECK_INT(gen_dump(nan, "--nan 1:1:layers.1.self_attention"), 0);
    for (int k = 0; k < 2; k++) {
        snprintf(cut, sizeof cut, "%s/step2/rank0/dump.json", k ? nan : clean);
        snprintf(cmd, sizeof cmd, "f='%s'; head -c $(($(stat -c %%s \"$f\") / 2)) \"$f\" > \"$f.x\" && "
                 "mv \"$f.x\" \"$f\" && touch -d '1 hour ago' \"$f\"", cut);
        CHECK_INT(system(cmd), 0);
    }
    char *out;
    CHECK_INT(run_overflow(&out, clean, NULL), EXIT_INCOMPLETE);
    CHECK_CONTAINS(out, "nothing at or above it in what was read, but 1 file could not be read whole: cannot say: exit 3");
    free(out);
    CHECK_INT(run_overflow(&out, clean, "--format", "json", NULL), EXIT_INCOMPLETE);
    cJSON *root = cJSON_Parse(out);
    CHECK(root != NULL);
    if (root) {
        CHECK_INT(get_int(get(root, "gate"), "exit"), EXIT_INCOMPLETE);
        const cJSON *sk = get(get(root, "unread"), "skipped");
        CHECK_INT(cJSON_GetArraySize(sk), 1);
        snprintf(cut, sizeof cut, "%s/step2/rank0/dump.json", clean);
        CHECK_STR(cJSON_GetStringValue(cJSON_GetArrayItem(sk, 0)), cut);
        CHECK(cJSON_IsFalse(get(get(root, "unread"), "accepted")));
    }
    cJSON_Delete(root);
    free(out);
    CHECK_INT(run_overflow(&out, clean, "--partial-ok", NULL), EXIT_OK);
    CHECK_CONTAINS(out, "accepted by --partial-ok: exit 0");
    free(out);
    CHECK_INT(run_overflow(&out, nan, NULL), EXIT_FOUND);   /* what was read fails the gate */
    free(out);
    /* followed until idle: the cut file (an hour old) is not being written */
    CHECK_INT(run_overflow(&out, "--follow", "--idle", "1", clean, NULL), EXIT_INCOMPLETE);
    CHECK_CONTAINS(out, "but 1 file could not be read whole (see the warnings): cannot say: exit 3");
    free(out);
    CHECK_INT(run_overflow(&out, "--follow", "--idle", "1", "--partial-ok", clean, NULL), EXIT_OK);
    free(out);
    /* a monitor tree whose CSV lost the end of its last row an hour ago */
    char dir[4300], csv[4400];
    snprintf(dir, sizeof dir, "%s/inc-mon/Nov14_22-13-20-rank0-d85ad257", pt_tmpdir_path);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    CHECK_INT(system(cmd), 0);
    snprintf(csv, sizeof csv, "%s/actv_0-0.csv", dir);
    CHECK_INT(pt_write(csv, "vpp_stage,name,step,micro_step,norm,min,max,mean\n0,layers.0.mlp,0,0,1.5,0,2,1\n"
                            "0,layers.1.mlp,0,0,2.5,0,3"), 0);
    snprintf(cmd, sizeof cmd, "touch -d '1 hour ago' '%s'", csv);
    CHECK_INT(system(cmd), 0);
    snprintf(dir, sizeof dir, "%s/inc-mon", pt_tmpdir_path);
    CHECK_INT(run_overflow(&out, dir, "--format", "json", NULL), EXIT_INCOMPLETE);
    root = cJSON_Parse(out);
    CHECK(root != NULL);
    if (root) {
        const cJSON *pa = get(get(root, "unread"), "partial");
        CHECK_INT(cJSON_GetArraySize(pa), 1);
        CHECK_STR(cJSON_GetStringValue(cJSON_GetArrayItem(pa, 0)), csv);
    }
    cJSON_Delete(root);
    free(out);
    CHECK_INT(run_overflow(&out, dir, "--partial-ok", NULL), EXIT_OK);
    free(out);
}

static void test_monitor(void) {
    const char *mon = pt_fixture("derived/synthetic_monitor_output");
    if (!mon) SKIP("no monitor fixture");
    char *out;
    int rc = run_overflow(&out, mon, "--format", "json", NULL);
    CHECK_INT(rc, EXIT_FOUND);
    cJSON *root = cJSON_Parse(out);
    CHECK(root != NULL);
    if (root) {
        CHECK(cJSON_IsFalse(get(root, "levels")));
        CHECK(get_int(get(root, "counts"), "nonfinite") >= 2);   /* an inf on rank 0, a nan on rank 1 */
        CHECK(cJSON_IsObject(get(root, "first")));
        CHECK_STR(get_str(get(root, "first"), "level"), "nonfinite");
        int r0 = 0, r1 = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, get(root, "entries")) {
            r0 += get_int(e, "rank") == 0;
            r1 += get_int(e, "rank") == 1;
            CHECK_STR(get_str(e, "level"), "nonfinite");
        }
        CHECK(r0 >= 1);
        CHECK(r1 >= 1);
    }
    cJSON_Delete(root);
    free(out);
    CHECK_INT(run_overflow(&out, mon, NULL), EXIT_FOUND);
    CHECK_CONTAINS(out, "levels: not available for this input");
    free(out);
}

/* A .trend.db msProbe wrote from the monitor sample: +-Inf is stored as
 * the clamp +-(1e9+1), NaN as NULL in a row that exists; both are found,
 * as in the sample itself (the Inf on rank 0 first, the NaN norm on rank
 * 1), and the gate fails. */
static void test_trenddb(void) {
    const char *db = pt_fixture("derived/synthetic_monitor.micro_step_true/monitor_data.trend.db");
    if (!db) SKIP("no trend.db fixture");
    char *out;
    CHECK_INT(run_overflow(&out, db, "--format", "json", NULL), EXIT_FOUND);
    cJSON *root = cJSON_Parse(out);
    CHECK(root != NULL);
    if (root) {
        CHECK(cJSON_IsFalse(get(root, "levels")));
        CHECK_STR(get_str(root, "input"), "trenddb");
        CHECK_INT(get_int(get(root, "counts"), "nonfinite"), 2);
        const cJSON *f = get(root, "first");
        CHECK_STR(get_str(f, "name"), "module.decoder.layers.0.self_attention.linear_proj.input");
        CHECK_STR(get_str(f, "what"), "actv max=inf");
        CHECK_INT(get_int(f, "rank"), 0);
        const cJSON *e = cJSON_GetArrayItem(get(root, "entries"), 1);
        CHECK_STR(get_str(e, "name"), "module.decoder.layers.1.mlp.linear_fc1.output");
        CHECK_STR(get_str(e, "what"), "actv norm=nan");
        CHECK_INT(get_int(e, "rank"), 1);
        CHECK_INT(get_int(e, "step"), 3);
    }
    cJSON_Delete(root);
    free(out);
    /* The dump's own trend.db (no NaN/Inf in the sample): nothing, exit 0. */
    const char *clean = pt_fixture("derived/gpu_dump.micro_step_true/dump_data.trend.db");
    if (clean) {
        CHECK_INT(run_overflow(&out, clean, "--format", "csv", NULL), EXIT_OK);
        CHECK_STR(out, "level,step,micro_step,rank,pos,name,what,kind,records,steps,ranks\n");
        free(out);
    }
}

/* A NaN held only in a module's weights (its `parameters` in dump.json):
 * msProbe's overflow check reads no parameters and gives the record no
 * level; probetop reports it as critical and says "weight" (a NaN weight
 * points to the optimizer step, not to the operator). */
static void test_weight(void) {
    char dir[4300], path[4400];
    snprintf(dir, sizeof dir, "%s/weight", pt_tmpdir_path);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/dump.json", dir);
#define T(v) "{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\", \"shape\": [4, 4], " \
             "\"Max\": " v ", \"Min\": -1.0, \"Mean\": 0.1, \"Norm\": 2.0, \"requires_grad\": true}"
    CHECK_INT(pt_write(path, "{\"task\": \"statistics\", \"level\": \"L0\", \"framework\": \"pytorch\", \"data\": {"
                             "\"Module.fc.Linear.forward.0\": {\"input_args\": [" T("1.0") "], \"input_kwargs\": {}, "
                             "\"output\": [" T("1.0") "], \"parameters\": {\"weight\": " T("NaN") ", \"bias\": " T("1.0") "}},"
                             "\"Module.fc2.Linear.forward.0\": {\"input_args\": [" T("1.0") "], \"input_kwargs\": {}, "
                             "\"output\": [" T("1.0") "], \"parameters\": {\"weight\": " T("1.0") "}}}}"), 0);
#undef T
    char *out;
    CHECK_INT(run_overflow(&out, path, "--format", "json", NULL), EXIT_FOUND);
    cJSON *root = cJSON_Parse(out);
    const cJSON *f = get(root, "first");
    CHECK(f != NULL && !cJSON_IsNull(f));
    if (f && !cJSON_IsNull(f)) {
        CHECK_STR(get_str(f, "name"), "Module.fc.Linear.forward.0");
        CHECK_STR(get_str(f, "level"), "critical");
        CHECK_STR(get_str(f, "what"), "weight.weight Max=nan");
    }
    CHECK_INT(get_int(get(root, "counts"), "critical"), 1);
    CHECK_INT(cJSON_GetArraySize(get(root, "entries")), 1);
    cJSON_Delete(root);
    free(out);
}

/* overflow DIR --format FMT on one thread and on three: the same bytes,
 * the three threads' output returned (the caller frees it). */
static char *one_three(const char *dir, const char *fmt) {
    char *one = NULL, *three = NULL;
    setenv("PROBETOP_THREADS", "1", 1);
    CHECK_INT(run_overflow(&one, dir, "--format", fmt, NULL), EXIT_FOUND);
    setenv("PROBETOP_THREADS", "3", 1);
    CHECK_INT(run_overflow(&three, dir, "--format", fmt, NULL), EXIT_FOUND);
    unsetenv("PROBETOP_THREADS");
    CHECK_STR(three, one);
    free(one);
    return three;
}

/* A listing longer than a chunk of rows (cmd_overflow.c's out_rows: the
 * rows formatted on every core, written in order): the same bytes on one
 * thread and on several, in JSON and csv, names to escape among them (a
 * quote, a backslash, a control byte, UTF-8, a C1 control, a stray byte,
 * a comma), valid JSON with every row and a csv line per row. */
static void test_many_rows(void) {
    enum { N = 9000 };
    size_t cap = (size_t)N * 300, n = 0;
    char *text = malloc(cap);
    CHECK(text != NULL);
    if (!text) return;
    n += (size_t)snprintf(text + n, cap - n, "{\"task\": \"statistics\", \"level\": \"L1\", \"data\": {");
    static const char *const odd[] = {"q\\\"uote", "back\\\\slash", "ctl\\u0001", "utf8 \xc3\xa9", "c1 \xc2\x9b",
                                      "stray \xff", "com,ma"};
    for (int i = 0; i < N; i++)
        n += (size_t)snprintf(text + n, cap - n,
                              "%s\"Functional.%s.%d.forward\": {\"input_args\": [{\"type\": \"torch.Tensor\", "
                              "\"dtype\": \"torch.float32\", \"Max\": 1, \"Min\": 0}], \"output\": [{\"type\": "
                              "\"torch.Tensor\", \"dtype\": \"torch.float32\", \"Max\": NaN, \"Min\": 0}]}",
                              i ? ", " : "", i % 997 < 7 ? odd[i % 997] : "linear", i);
    snprintf(text + n, cap - n, "}}");
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/many", pt_tmpdir_path);
    CHECK_INT(pt_write_rank0(dir, text), 0);
    free(text);
    char *two = one_three(dir, "json");
    cJSON *root = cJSON_Parse(two);
    CHECK(root != NULL);
    const cJSON *rows = cJSON_GetObjectItem(root, "entries");
    CHECK_INT(cJSON_GetArraySize(rows), N);
    int escaped = 0;
    for (const cJSON *r = rows ? rows->child : NULL; r; r = r->next) {
        const cJSON *nm = cJSON_GetObjectItem(r, "name");
        escaped += cJSON_IsString(nm) && !strncmp(nm->valuestring, "Functional.q\"uote.", 18);
    }
    CHECK_INT(escaped, (N + 996) / 997);
    cJSON_Delete(root);
    free(two);

    two = one_three(dir, "csv");
    long lines = 0;
    for (const char *p = two; *p; p++) lines += *p == '\n';
    CHECK_INT(lines, N + 1);
    CHECK_CONTAINS(two, ",\"Functional.q\"\"uote.997.forward\",out.0 Max=nan,nonfinite,1,1,1\n");
    CHECK_CONTAINS(two, ",\"Functional.com,ma.8979.forward\",out.0 Max=nan,");
    CHECK_CONTAINS(two, ",Functional.ctl\\x01.2.forward,out.0 Max=nan,");
    CHECK_CONTAINS(two, ",Functional.linear.8999.forward,out.0 Max=nan,nonfinite,1,1,1\n");
    free(two);
}

int main(void) {
    if (scratch_init() != 0) return 1;
    RUN(test_usage);
    RUN(test_quick_start_clean);
    RUN(test_gen_dump_planted);
    RUN(test_quick_start_planted);
    RUN(test_gate);
    RUN(test_steps_far_apart);
    RUN(test_monitor);
    RUN(test_incomplete);
    RUN(test_trenddb);
    RUN(test_weight);
    RUN(test_many_rows);
    PT_DONE();
}
