package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// root is the repository.
const root = ".."

// goreleaser returns the goreleaser binary: $CLAWD_GORELEASER, else the
// one scripts/install-tools.sh installs into the test cache, at the
// version pinned there.
func goreleaser(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CLAWD_GORELEASER"); p != "" {
		return p
	}
	script, err := os.ReadFile(filepath.Join(root, "scripts", "install-tools.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^GORELEASER_VERSION=(\S+)$`).FindSubmatch(script)
	if m == nil {
		t.Fatal("scripts/install-tools.sh pins no GORELEASER_VERSION")
	}
	cache := os.Getenv("CLAWD_TEST_CACHE")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		cache = filepath.Join(home, ".cache", "clawd-test")
	}
	p := filepath.Join(cache, "goreleaser", string(m[1]), "goreleaser")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("goreleaser %s is not installed (%v): run bash scripts/install-tools.sh", m[1], err)
	}
	return p
}

// snapshotRepo copies the repository's files (committed or not, as git
// sees them) into a new git repository with one commit and a remote, as a
// release checkout has: goreleaser's before hook (go mod tidy) and dist/
// then touch the copy only. It returns the copy and its commit.
func snapshotRepo(t *testing.T) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clawd")
	for _, f := range repoFiles(t) {
		dst := filepath.Join(dir, f.name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, f.data, f.mode); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=clawd", "GIT_AUTHOR_EMAIL=clawd@example.invalid",
			"GIT_COMMITTER_NAME=clawd", "GIT_COMMITTER_EMAIL=clawd@example.invalid")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "snapshot")
	git("remote", "add", "origin", "https://github.com/clawdhq/clawd.git")
	return dir, git("rev-parse", "HEAD")
}

type repoFile struct {
	name string // slash-separated, relative to the repository
	data []byte
	mode os.FileMode
}

// repoFiles returns the repository's files, committed or not, as git
// sees them (ignored files left out).
func repoFiles(t *testing.T) []repoFile {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	var files []repoFile
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(root, f))
		if os.IsNotExist(err) {
			continue // deleted, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, repoFile{f, data, fi.Mode().Perm()})
	}
	return files
}

// TestSnapshot runs `goreleaser check` and `goreleaser release --snapshot`
// and checks the release: every archive with README, LICENSE and
// CHANGELOG, checksums that match, static Linux and Windows binaries that
// run `version` (linux/arm64 under qemu-user, windows/amd64 under Wine),
// the .deb's and .rpm's metadata and files, the formula and the manifest.
func TestSnapshot(t *testing.T) {
	t.Parallel()
	gr := goreleaser(t)
	dir, commit := snapshotRepo(t)
	run := func(args ...string) string {
		cmd := exec.Command(gr, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("goreleaser %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("check")
	start := time.Now()
	run("release", "--snapshot", "--clean")
	t.Logf("goreleaser release --snapshot: %s", time.Since(start).Round(time.Second))
	dist := filepath.Join(dir, "dist")

	var meta struct{ Version string }
	readJSON(t, filepath.Join(dist, "metadata.json"), &meta)
	ver := meta.Version
	if !strings.HasSuffix(ver, "-next") {
		t.Fatalf("snapshot version %q, want ...-next", ver)
	}
	sums := checksums(t, dist)

	targets := []struct{ os, arch string }{
		{"linux", "amd64"}, {"linux", "arm64"}, {"windows", "amd64"}, {"darwin", "amd64"}, {"darwin", "arm64"},
	}
	for _, tg := range targets {
		name := fmt.Sprintf("clawd_%s_%s_%s", ver, tg.os, tg.arch)
		exe := "clawd"
		if tg.os == "windows" {
			name += ".zip"
			exe += ".exe"
		} else {
			name += ".tar.gz"
		}
		files := archiveFiles(t, filepath.Join(dist, name))
		for _, want := range []string{exe, "README.md", "LICENSE", "CHANGELOG.md", "docs/getting-started.md", "docs/agents/claude.md"} {
			if _, ok := files[want]; !ok {
				t.Errorf("%s lacks %s (has %v)", name, want, keys(files))
			}
		}
		checkSum(t, sums, dist, name)
		bin := files[exe]
		t.Logf("%s/%s: binary %.1f MB, archive %.1f MB", tg.os, tg.arch, float64(len(bin))/1e6, float64(size(t, filepath.Join(dist, name)))/1e6)
		switch tg.os {
		case "linux":
			checkStaticELF(t, name, bin)
		case "windows":
			checkWindowsPE(t, name, bin)
		case "darwin":
			checkMachO(t, name, bin, tg.arch)
		}
		if r, ok := runnerFor(t, tg.os, tg.arch); ok {
			checkVersion(t, r, tg.os, tg.arch, bin, ver, commit)
		}
	}

	debVer := strings.ReplaceAll(ver, "-", "~")
	for _, pkg := range []string{"clawd_" + debVer + "_amd64.deb", "clawd_" + debVer + "_arm64.deb",
		"clawd-" + debVer + "-1.x86_64.rpm", "clawd-" + debVer + "-1.aarch64.rpm"} {
		checkSum(t, sums, dist, pkg)
	}
	checkDeb(t, dir, filepath.Join(dist, "clawd_"+debVer+"_amd64.deb"), debVer)
	checkRPM(t, filepath.Join(dist, "clawd-"+debVer+"-1.x86_64.rpm"), debVer, "x86_64")
	checkRPM(t, filepath.Join(dist, "clawd-"+debVer+"-1.aarch64.rpm"), debVer, "aarch64")
	checkFormula(t, dist, ver, sums)
	checkScoop(t, dist, ver, sums)
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func size(t *testing.T, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// checksums reads checksums.txt: file name to sha256.
func checksums(t *testing.T, dist string) map[string]string {
	b, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("checksums.txt: bad line %q", line)
		}
		sums[name] = sum
	}
	return sums
}

func checkSum(t *testing.T, sums map[string]string, dist, name string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dist, name))
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); sums[name] != got {
		t.Errorf("checksums.txt says %s is %q, it is %s", name, sums[name], got)
	}
}

// archiveFiles returns the files of a .tar.gz or .zip by name.
func archiveFiles(t *testing.T, path string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	if strings.HasSuffix(path, ".zip") {
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			files[f.Name] = b
		}
		return files
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = b
	}
}

// checkStaticELF: no program interpreter and no shared libraries.
func checkStaticELF(t *testing.T, name string, bin []byte) {
	t.Helper()
	for _, p := range elfProblems(bin) {
		t.Errorf("%s: clawd %s", name, p)
	}
}

// elfProblems says what keeps bin from being a static ELF executable.
func elfProblems(bin []byte) []string {
	f, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		return []string{"is not ELF: " + err.Error()}
	}
	var out []string
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			out = append(out, "is dynamically linked ("+p.Type.String()+")")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		out = append(out, fmt.Sprintf("needs shared libraries %v", libs))
	}
	return out
}

// TestStaticCheckFires: the static check finds a dynamic executable out.
func TestStaticCheckFires(t *testing.T) {
	bin, err := os.ReadFile("/bin/sh")
	if err != nil {
		t.Fatal(err)
	}
	if p := elfProblems(bin); len(p) == 0 {
		t.Errorf("elfProblems(/bin/sh) = nothing, want it dynamically linked")
	}
}

// windowsSystemDLLs are DLLs every Windows has; a Go binary without cgo
// imports only some of these.
var windowsSystemDLLs = []string{"kernel32.dll", "ntdll.dll", "advapi32.dll", "user32.dll", "shell32.dll",
	"ws2_32.dll", "winmm.dll", "ole32.dll", "oleaut32.dll", "gdi32.dll", "comctl32.dll", "iphlpapi.dll",
	"secur32.dll", "userenv.dll", "dnsapi.dll", "crypt32.dll", "bcrypt.dll", "powrprof.dll", "netapi32.dll",
	"version.dll", "shlwapi.dll", "combase.dll", "comdlg32.dll", "mswsock.dll", "api-ms-win-core-synch-l1-2-0.dll"}

// checkWindowsPE: a 64-bit PE that imports system DLLs only (no C runtime
// or other DLL beside it to ship). checkVersion runs it under Wine.
func checkWindowsPE(t *testing.T, name string, bin []byte) {
	t.Helper()
	f, err := pe.NewFile(bytes.NewReader(bin))
	if err != nil {
		t.Errorf("%s: clawd.exe is not PE: %v", name, err)
		return
	}
	if f.Machine != pe.IMAGE_FILE_MACHINE_AMD64 {
		t.Errorf("%s: clawd.exe machine %#x, want amd64", name, f.Machine)
	}
	// debug/pe lists a binary's DLLs only through its imported symbols,
	// "Name:dll".
	syms, err := f.ImportedSymbols()
	if err != nil {
		t.Errorf("%s: %v", name, err)
	}
	var libs []string
	for _, s := range syms {
		if _, dll, ok := strings.Cut(s, ":"); ok && !slices.Contains(libs, dll) {
			libs = append(libs, dll)
		}
	}
	for _, l := range libs {
		if !slices.Contains(windowsSystemDLLs, strings.ToLower(l)) {
			t.Errorf("%s: clawd.exe imports %s, not a Windows system DLL", name, l)
		}
	}
	if !slices.ContainsFunc(libs, func(l string) bool { return strings.EqualFold(l, "kernel32.dll") }) {
		t.Errorf("%s: clawd.exe imports %v, not even kernel32.dll", name, libs)
	}
}

// checkMachO: a Mach-O of the right CPU that links only the system's
// libraries.
func checkMachO(t *testing.T, name string, bin []byte, arch string) {
	t.Helper()
	f, err := macho.NewFile(bytes.NewReader(bin))
	if err != nil {
		t.Errorf("%s: clawd is not Mach-O: %v", name, err)
		return
	}
	want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[arch]
	if f.Cpu != want {
		t.Errorf("%s: clawd CPU %v, want %v", name, f.Cpu, want)
	}
	libs, _ := f.ImportedLibraries()
	for _, l := range libs {
		if !strings.HasPrefix(l, "/usr/lib/") && !strings.HasPrefix(l, "/System/Library/") {
			t.Errorf("%s: clawd links %s, not a system library", name, l)
		}
	}
}

// checkVersion runs the release binary's `clawd version --json` with r:
// the snapshot's version, the commit built, a build date, this Go, its OS
// and CPU.
func checkVersion(t *testing.T, r runner, goos, goarch string, bin []byte, ver, commit string) {
	t.Helper()
	name := "clawd"
	if goos == "windows" {
		name += ".exe"
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := r.command(path, "version", "--json").Output()
	if err != nil {
		t.Errorf("%s/%s: clawd version --json: %v", goos, goarch, err)
		return
	}
	var got struct{ Version, Commit, Date, Go, OS, Arch string }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Errorf("%s/%s: clawd version --json = %s: %v", goos, goarch, out, err)
		return
	}
	if got.Version != ver || got.Commit != commit || got.Go != goruntime.Version() || got.OS != goos || got.Arch != goarch {
		t.Errorf("%s/%s: clawd version --json = %+v, want version %s, commit %s, %s", goos, goarch, got, ver, commit, goruntime.Version())
	}
	if _, err := time.Parse(time.RFC3339, got.Date); err != nil {
		t.Errorf("%s/%s: clawd version --json date %q: %v", goos, goarch, got.Date, err)
	}
	out, err = r.command(path, "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "clawd "+ver+"\n") {
		t.Errorf("%s/%s: clawd version = %q, %v", goos, goarch, out, err)
	}
	t.Logf("%s/%s: %s runs clawd version", goos, goarch, cmp.Or(strings.Join(r.argv, " "), "this machine"))
}

// checkDeb reads the .deb with dpkg-deb: its control fields, its files,
// and that the unit and binary in it are the repository's and the
// release's.
func checkDeb(t *testing.T, repo, deb, debVer string) {
	t.Helper()
	info, err := exec.Command("dpkg-deb", "--info", deb).CombinedOutput()
	if err != nil {
		t.Fatalf("dpkg-deb --info: %v\n%s", err, info)
	}
	for _, want := range []string{"Package: clawd", "Version: " + debVer, "Architecture: amd64",
		"Maintainer: clawd maintainers", "Homepage: https://github.com/clawdhq/clawd",
		"Description: See and answer every AI coding agent on this machine."} {
		if !strings.Contains(string(info), "\n "+want) {
			t.Errorf("dpkg-deb --info lacks %q:\n%s", want, info)
		}
	}
	contents, err := exec.Command("dpkg-deb", "--contents", deb).CombinedOutput()
	if err != nil {
		t.Fatalf("dpkg-deb --contents: %v\n%s", err, contents)
	}
	for _, want := range []string{
		`-rwxr-xr-x root/root +\d+ [-0-9: ]+ \./usr/bin/clawd\n`,
		`-rw-r--r-- root/root +\d+ [-0-9: ]+ \./usr/lib/systemd/user/clawd\.service\n`,
		`-rw-r--r-- root/root +\d+ [-0-9: ]+ \./usr/share/doc/clawd/copyright\n`,
		`-rw-r--r-- root/root +\d+ [-0-9: ]+ \./usr/share/doc/clawd/README\.md\n`,
	} {
		if !regexp.MustCompile(want).Match(contents) {
			t.Errorf("dpkg-deb --contents lacks %s:\n%s", want, contents)
		}
	}
	x := t.TempDir()
	if out, err := exec.Command("dpkg-deb", "-x", deb, x).CombinedOutput(); err != nil {
		t.Fatalf("dpkg-deb -x: %v\n%s", err, out)
	}
	same := func(a, b string) {
		da, err1 := os.ReadFile(a)
		db, err2 := os.ReadFile(b)
		if err1 != nil || err2 != nil || !bytes.Equal(da, db) {
			t.Errorf("%s differs from %s (%v, %v)", a, b, err1, err2)
		}
	}
	same(filepath.Join(x, "usr/lib/systemd/user/clawd.service"), filepath.Join(repo, "packaging", "clawd.service"))
	same(filepath.Join(x, "usr/bin/clawd"), filepath.Join(repo, "dist", "clawd_linux_amd64_v1", "clawd"))
	same(filepath.Join(x, "usr/share/doc/clawd/copyright"), filepath.Join(repo, "LICENSE"))
}

// checkRPM reads the .rpm with rpm: its header and its files, with their
// modes.
func checkRPM(t *testing.T, path, ver, arch string) {
	t.Helper()
	info, err := exec.Command("rpm", "-qip", path).CombinedOutput()
	if err != nil {
		t.Fatalf("rpm -qip %s: %v\n%s", path, err, info)
	}
	for _, want := range []string{`Name +: clawd\n`, `Version +: ` + regexp.QuoteMeta(ver) + `\n`,
		`Architecture: ` + arch + `\n`, `License +: MIT\n`, `URL +: https://github\.com/clawdhq/clawd\n`,
		`Summary +: See and answer every AI coding agent on this machine\.\n`} {
		if !regexp.MustCompile(want).Match(info) {
			t.Errorf("rpm -qip %s lacks %s:\n%s", filepath.Base(path), want, info)
		}
	}
	files, err := exec.Command("rpm", "-qlvp", path).CombinedOutput()
	if err != nil {
		t.Fatalf("rpm -qlvp %s: %v\n%s", path, err, files)
	}
	for _, want := range []string{
		`(?m)^-rwxr-xr-x .* root +root .* /usr/bin/clawd$`,
		`(?m)^-rw-r--r-- .* root +root .* /usr/lib/systemd/user/clawd\.service$`,
		`(?m)^-rw-r--r-- .* root +root .* /usr/share/doc/clawd/copyright$`,
	} {
		if !regexp.MustCompile(want).Match(files) {
			t.Errorf("rpm -qlvp %s lacks %s:\n%s", filepath.Base(path), want, files)
		}
	}
}

// checkFormula: the Homebrew formula names this version and the macOS
// and Linux archives with their checksums, and runs clawd serve as a
// service.
func checkFormula(t *testing.T, dist, ver string, sums map[string]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dist, "homebrew", "Formula", "clawd.rb"))
	if err != nil {
		t.Fatal(err)
	}
	f := string(b)
	wants := []string{"class Clawd < Formula", `version "` + ver + `"`, `license "MIT"`,
		`bin.install "clawd"`, `run [opt_bin/"clawd", "serve"]`, `system "#{bin}/clawd", "version"`}
	for _, osArch := range []string{"darwin_amd64", "darwin_arm64", "linux_amd64", "linux_arm64"} {
		name := fmt.Sprintf("clawd_%s_%s.tar.gz", ver, osArch)
		wants = append(wants, "/"+name+`"`, `sha256 "`+sums[name]+`"`)
	}
	for _, w := range wants {
		if !strings.Contains(f, w) {
			t.Errorf("the formula lacks %q:\n%s", w, f)
		}
	}
}

// checkScoop: the Scoop manifest names this version and the Windows
// archive with its checksum.
func checkScoop(t *testing.T, dist, ver string, sums map[string]string) {
	t.Helper()
	var m struct {
		Version      string
		License      string
		Architecture map[string]struct {
			URL  string
			Bin  []string
			Hash string
		}
	}
	readJSON(t, filepath.Join(dist, "scoop", "clawd.json"), &m)
	name := fmt.Sprintf("clawd_%s_windows_amd64.zip", ver)
	a := m.Architecture["64bit"]
	if m.Version != ver || m.License != "MIT" || !strings.HasSuffix(a.URL, "/"+name) || a.Hash != sums[name] || !slices.Equal(a.Bin, []string{"clawd.exe"}) {
		t.Errorf("scoop manifest = %+v, want version %s and %s with hash %s", m, ver, name, sums[name])
	}
}
