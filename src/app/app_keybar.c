/* app_keybar: the key bar, the bottom row that says the keys as htop's
 * does: F1 Help, the F-key of each screen this input has, by the screen's
 * name, F10 Quit, and where there is room the main other keys.  It is made
 * from the tables, the screen table (app_screens[]) and the app's key
 * rows (app_keys[]), so a screen or key added there shows here.  Too
 * narrow for all of it, it drops the other keys first, then shortens every
 * label alike (F3Overflow, F3Over, F3O), then drops screens from the
 * right, F10 Quit last.  K hides and shows it; a click on an item is its
 * key. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "src/app/app_state.h"
#include "ui/keys.h"
#include "ui/ui.h"

#define KB_MAX 24

struct kb_item {
    char key[16];
    char label[32];
    int code;                  /* the key (KEYS_F1...) */
    int cur;                   /* the screen shown */
};

/* "quit", "help (this screen)" -> "Quit", "Help": the first word of a
 * key row's help or a screen's name, capitalised. */
static void label_of(const char *text, char *out, size_t size) {
    size_t n = strcspn(text, " (/:,;");
    if (n >= size) n = size - 1;
    memcpy(out, text, n);
    out[n] = '\0';
    if (out[0]) out[0] = (char)toupper((unsigned char)out[0]);
}

static int add_key_row(struct kb_item *it, int n, int code) {
    const struct keys_row *r = keys_find(app_keys, app_nkeys, code);
    if (!r || !r->help || n >= KB_MAX) return n;
    keys_name(code, it[n].key, sizeof it[n].key);
    label_of(r->help, it[n].label, sizeof it[n].label);
    it[n].code = code;
    it[n].cur = 0;
    return n + 1;
}

/* The F-key items (F1, the screens in F-key order, F10) in it[0..*nf),
 * then the other keys up to the returned count. */
static int collect(const struct app *a, struct kb_item *it, int *nf) {
    int n = 0;
    for (int f = KEYS_F1; f <= KEYS_F12 && n < KB_MAX; f++) {
        int found = 0;
        for (int s = 0; s < a->nscreens && n < KB_MAX; s++) {
            if (a->screens[s].fkey != f) continue;
            found = 1;
            /* a screen this input has no pane for is not offered */
            if (strcmp(a->screens[s].name, "help") && app_first_pane(a, s) < 0) continue;
            keys_name(f, it[n].key, sizeof it[n].key);
            label_of(a->screens[s].name, it[n].label, sizeof it[n].label);
            it[n].code = f;
            it[n].cur = s == a->screen;
            n++;
        }
        if (!found) n = add_key_row(it, n, f);   /* an F-key of the app's own rows (F10 quit) */
    }
    *nf = n;
    static const int others[] = {'/', ':', KEYS_TAB, 'K'};
    for (size_t k = 0; k < sizeof others / sizeof others[0]; k++) n = add_key_row(it, n, others[k]);
    return n;
}

static int item_w(const struct kb_item *t, int maxlab) {
    int l = (int)strlen(t->label);
    return (int)strlen(t->key) + (l < maxlab ? l : maxlab) + 1;
}

/* How the bar fits cols: the items shown (*shown of them, the F-keys
 * first) and the longest label; the last F-key item (F10) is kept while
 * screens are dropped. */
static void fit(const struct kb_item *it, int n, int nf, int cols, int *shown, int *maxlab, int *keep_last) {
    int longest = 0, w = 0;
    for (int i = 0; i < n; i++)
        if ((int)strlen(it[i].label) > longest) longest = (int)strlen(it[i].label);
    *keep_last = 0;
    *maxlab = longest;
    /* all of the F-keys at full length, and as many others as fit */
    for (int i = 0; i < nf; i++) w += item_w(&it[i], longest);
    if (w <= cols) {
        int k = nf;
        while (k < n && w + item_w(&it[k], longest) <= cols) w += item_w(&it[k++], longest);
        *shown = k;
        return;
    }
    /* shorter labels, down to 4 letters (F3Over) */
    for (int m = longest - 1; m >= 4; m--) {
        w = 0;
        for (int i = 0; i < nf; i++) w += item_w(&it[i], m);
        if (w <= cols) { *shown = nf; *maxlab = m; return; }
    }
    /* 4 letters, 1, then screens dropped from the right, the last kept */
    for (int m = 4; m >= 1; m = m == 4 ? 1 : 0) {
        *maxlab = m;
        for (int k = nf; k >= 1; k--) {
            w = 0;
            for (int i = 0; i < k; i++) w += item_w(&it[i], m);
            int last = k < nf && nf > 1;
            if (last) w += item_w(&it[nf - 1], m);
            if (w <= cols) { *shown = k; *keep_last = last; return; }
        }
    }
    *shown = 0;
}

static int put_item(WINDOW *w, const struct ui *u, int x, int cols, const struct kb_item *t, int maxlab) {
    char lab[32];
    int l = (int)strlen(t->label);
    if (l > maxlab) l = maxlab;
    snprintf(lab, sizeof lab, "%.*s ", l, t->label);
    ui_role(w, u, UI_KEY);
    x += ui_put(w, 0, x, cols - x, t->key);
    ui_role(w, u, t->cur ? UI_BAR_HI : UI_BAR);
    x += ui_put(w, 0, x, cols - x, lab);
    return x;
}

int app_keybar_key_at(struct app *a, int col) {
    struct kb_item it[KB_MAX];
    int nf, n = collect(a, it, &nf), shown, maxlab, keep_last, x = 0;
    fit(it, n, nf, a->cols_total, &shown, &maxlab, &keep_last);
    for (int i = 0; i <= shown; i++) {
        const struct kb_item *t = i < shown ? &it[i] : keep_last ? &it[nf - 1] : NULL;
        if (!t) break;
        int w = item_w(t, maxlab);
        if (col >= x && col < x + w) return t->code;
        x += w;
    }
    return 0;
}

void app_keybar_draw(struct app *a, WINDOW *w) {
    if (!w) return;
    int cols = a->cols_total;
    struct kb_item it[KB_MAX];
    int nf, n = collect(a, it, &nf), shown, maxlab, keep_last;
    werase(w);
    fit(it, n, nf, cols, &shown, &maxlab, &keep_last);
    int x = 0;
    for (int i = 0; i < shown && x < cols; i++) x = put_item(w, a->ui, x, cols, &it[i], maxlab);
    if (keep_last && x < cols) x = put_item(w, a->ui, x, cols, &it[nf - 1], maxlab);
    ui_role(w, a->ui, UI_NORMAL);
    if (x < cols) ui_fill(w, 0, x, cols - x);
}
