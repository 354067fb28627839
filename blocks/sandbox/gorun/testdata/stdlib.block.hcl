# A go block that uses every standard package of the allowlist added for
# data processing (issue 34 #14), on in-memory data only. TestWidenedPackages
# runs its example interpreted; TestEnginesAgreeOnExamples (cmd/flowctl/cli)
# runs it interpreted and compiled and checks both engines agree (its
# timeout covers the first build of the compiled program on a busy machine).
block "stdlib" {
  runtime = "go"
  timeout = "5m"

  input "text" {
    type = string
  }
  output "out" {
    type = map(string)
  }

  source = <<-GO
    package block

    import (
      "archive/tar"
      "archive/zip"
      "bytes"
      "compress/flate"
      "compress/gzip"
      "compress/zlib"
      "container/heap"
      "container/list"
      "container/ring"
      "context"
      "crypto/hmac"
      "crypto/md5"
      "crypto/sha256"
      "crypto/sha512"
      "encoding/base32"
      "encoding/csv"
      "encoding/hex"
      "encoding/xml"
      "fmt"
      "hash"
      "hash/adler32"
      "hash/crc32"
      "hash/crc64"
      "hash/fnv"
      "hash/maphash"
      "html"
      htmltemplate "html/template"
      "math/big"
      "math/rand/v2"
      "mime"
      "net/netip"
      "net/url"
      "sort"
      "strings"
      "text/tabwriter"
      "text/template"
      "unicode"
      "unicode/utf16"
      "unicode/utf8"
    )

    type ints []int

    func (h ints) Len() int           { return len(h) }
    func (h ints) Less(i, j int) bool { return h[i] < h[j] }
    func (h ints) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
    func (h *ints) Push(x any)        { *h = append(*h, x.(int)) }
    func (h *ints) Pop() any {
      old := *h
      x := old[len(old)-1]
      *h = old[:len(old)-1]
      return x
    }

    func sum(h hash.Hash, s string) string {
      h.Write([]byte(s))
      return hex.EncodeToString(h.Sum(nil))
    }

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      text := input["text"].(string)
      out := map[string]any{}

      rows, err := csv.NewReader(strings.NewReader("region,n\nnorth,3\nsouth,4\n")).ReadAll()
      if err != nil {
        return nil, err
      }
      var cb bytes.Buffer
      w := csv.NewWriter(&cb)
      w.Write([]string{"a,b", `say "hi"`})
      w.Flush()
      out["csv"] = fmt.Sprintf("%d rows, %s %s; %s", len(rows), rows[1][0], rows[2][1], strings.TrimSpace(cb.String()))

      var doc struct {
        Items []string `xml:"item"`
      }
      if err := xml.Unmarshal([]byte("<list><item>a</item><item>b</item></list>"), &doc); err != nil {
        return nil, err
      }
      out["xml"] = strings.Join(doc.Items, "+")

      out["base32"] = base32.StdEncoding.EncodeToString([]byte(text))

      var tb strings.Builder
      tw := tabwriter.NewWriter(&tb, 0, 0, 1, ' ', 0)
      fmt.Fprintln(tw, "a\tbbb\tc")
      fmt.Fprintln(tw, "aaa\tb\tc")
      tw.Flush()
      out["tabwriter"] = tb.String()

      tt, err := template.New("t").Funcs(template.FuncMap{"up": strings.ToUpper}).Parse(`{{range .}}{{up .}};{{end}}`)
      if err != nil {
        return nil, err
      }
      var ts strings.Builder
      if err := tt.Execute(&ts, []string{"x", "y"}); err != nil {
        return nil, err
      }
      out["text_template"] = ts.String()

      ht := htmltemplate.Must(htmltemplate.New("h").Parse(`<a href="/q?s={{.}}">{{.}}</a>`))
      var hs strings.Builder
      if err := ht.Execute(&hs, "<b>&"); err != nil {
        return nil, err
      }
      out["html_template"] = hs.String()
      out["html"] = html.EscapeString("<i>") + html.UnescapeString("&amp;")

      u, err := url.Parse("https://example.com/a?b=1")
      if err != nil {
        return nil, err
      }
      p, err := netip.ParsePrefix("10.1.0.0/16")
      if err != nil {
        return nil, err
      }
      out["net"] = fmt.Sprintf("%s %s %v", u.Host, u.Query().Get("b"), p.Contains(netip.MustParseAddr("10.1.2.3")))

      mt, params, err := mime.ParseMediaType("text/html; charset=utf-8")
      if err != nil {
        return nil, err
      }
      out["mime"] = mt + " " + params["charset"] + " " + mime.QEncoding.Encode("utf-8", "é")

      var mh maphash.Hash
      mh.WriteString(text)
      out["hash"] = fmt.Sprintf("%08x %08x %016x %08x %v", adler32.Checksum([]byte(text)), crc32.ChecksumIEEE([]byte(text)),
        crc64.Checksum([]byte(text), crc64.MakeTable(crc64.ISO)), fnv.New32a().Sum32(), mh.Sum64() == mh.Sum64())
      out["sha256"] = sum(sha256.New(), text)
      out["sha512"] = sum(sha512.New(), text)[:32]
      out["md5"] = sum(md5.New(), text)
      out["hmac"] = sum(hmac.New(sha256.New, []byte("key")), text)

      var packed []string
      var gz bytes.Buffer
      zw := gzip.NewWriter(&gz)
      zw.Write([]byte(text))
      zw.Close()
      zr, err := gzip.NewReader(&gz)
      if err != nil {
        return nil, err
      }
      var bbuf bytes.Buffer
      bbuf.ReadFrom(zr)
      b := bbuf.Bytes()
      packed = append(packed, string(b))
      var fl bytes.Buffer
      fw, _ := flate.NewWriter(&fl, flate.BestCompression)
      fw.Write([]byte(text))
      fw.Close()
      bbuf.Reset()
      bbuf.ReadFrom(flate.NewReader(&fl))
      b = bbuf.Bytes()
      packed = append(packed, string(b))
      var zl bytes.Buffer
      lw := zlib.NewWriter(&zl)
      lw.Write([]byte(text))
      lw.Close()
      lr, err := zlib.NewReader(&zl)
      if err != nil {
        return nil, err
      }
      bbuf.Reset()
      bbuf.ReadFrom(lr)
      b = bbuf.Bytes()
      packed = append(packed, string(b))
      out["compress"] = strings.Join(packed, "|")

      var zb bytes.Buffer
      zipw := zip.NewWriter(&zb)
      f, _ := zipw.Create("a.txt")
      f.Write([]byte(text))
      zipw.Close()
      zrd, err := zip.NewReader(bytes.NewReader(zb.Bytes()), int64(zb.Len()))
      if err != nil {
        return nil, err
      }
      rc, err := zrd.File[0].Open()
      if err != nil {
        return nil, err
      }
      bbuf.Reset()
      bbuf.ReadFrom(rc)
      b = bbuf.Bytes()
      var tarb bytes.Buffer
      tarw := tar.NewWriter(&tarb)
      tarw.WriteHeader(&tar.Header{Name: "b.txt", Mode: 0o600, Size: int64(len(text))})
      tarw.Write([]byte(text))
      tarw.Close()
      tr := tar.NewReader(&tarb)
      hdr, err := tr.Next()
      if err != nil {
        return nil, err
      }
      var tbodybuf bytes.Buffer
      tbodybuf.ReadFrom(tr)
      tbody := tbodybuf.Bytes()
      out["archive"] = zrd.File[0].Name + "=" + string(b) + " " + hdr.Name + "=" + string(tbody)

      out["unicode"] = fmt.Sprintf("%v %d %d", unicode.IsUpper('É'), utf8.RuneCountInString("héllo"), len(utf16.Encode([]rune("a😀"))))

      h := &ints{5, 2, 8}
      heap.Init(h)
      heap.Push(h, 1)
      l := list.New()
      l.PushBack("b")
      l.PushFront("a")
      r := ring.New(3)
      out["container"] = fmt.Sprintf("%d %v %d", heap.Pop(h), l.Front().Value, r.Len())

      f1 := new(big.Int).Exp(big.NewInt(2), big.NewInt(100), nil)
      q := new(big.Rat).SetFrac64(1, 3)
      out["big"] = f1.String() + " " + q.FloatString(5)

      rng := rand.New(rand.NewPCG(1, 2))
      draws := []int{rng.IntN(100), rng.IntN(100), rng.IntN(100)}
      sort.Ints(draws)
      out["rand"] = fmt.Sprint(len(draws), draws[0] >= 0 && draws[2] < 100, rand.IntN(10) < 10)
      return map[string]any{"out": out}, nil
    }
  GO

  example {
    input = { text = "flowctl" }
    output = {
      out = {
        csv           = "3 rows, north 4; \"a,b\",\"say \"\"hi\"\"\""
        xml           = "a+b"
        base32        = "MZWG653DORWA===="
        tabwriter     = "a   bbb c\naaa b   c\n"
        text_template = "X;Y;"
        html_template = "<a href=\"/q?s=%3cb%3e%26\">&lt;b&gt;&amp;</a>"
        html          = "&lt;i&gt;&"
        net           = "example.com 1 true"
        mime          = "text/html utf-8 =?utf-8?q?=C3=A9?="
        hash          = "0bdd02fc a270f5c1 3ef8676abc3ee030 811c9dc5 true"
        sha256        = "facd06dd1f1efc409a388d90b53ff4cff6d5865e5a4454254f6ea913442add45"
        sha512        = "d1d9a5319e0011de5c5f198a1fd021cd"
        md5           = "c88d7dbd3a61aa6d19b1d07380c08796"
        hmac          = "77aed5f40cda9c47afa14220646b6a24589ccb4ccd3122fc19d2b05fb3284de6"
        compress      = "flowctl|flowctl|flowctl"
        archive       = "a.txt=flowctl b.txt=flowctl"
        unicode       = "true 5 3"
        container     = "1 a 3"
        big           = "1267650600228229401496703205376 0.33333"
        rand          = "3 true true"
      }
    }
  }
}
