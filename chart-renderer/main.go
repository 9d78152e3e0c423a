// Command kaddon-chart-renderer renders Helm charts as `helm template` does, for as long as kaddon
// runs (docs/delivery.md "Chart modules without a process per render"). It reads one request per
// line on stdin, a JSON object:
//
//	{"id": 7, "release": "ingress", "chart": "/modules/ingress", "namespace": "d8", "valuesFiles": ["/tmp/v.json"]}
//
// and answers each with one line on stdout:
//
//	{"id": 7, "stdout": "<what helm template prints>", "stderr": "<what it prints on stderr>", "exitCode": 0}
//
// The rendering is Helm's own code (helm.sh/helm/v4 pkg/action, the same calls `helm template`
// makes), so the output is byte for byte that of the `helm template` built from the same Helm
// version. Requests are answered one at a time, in order. A template that never ends blocks this
// process: kaddon bounds each request and replaces the process that overruns.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart"
	"helm.sh/helm/v4/pkg/chart/loader"
	"helm.sh/helm/v4/pkg/cli"
	"helm.sh/helm/v4/pkg/cli/values"
	"helm.sh/helm/v4/pkg/getter"
	ri "helm.sh/helm/v4/pkg/release"
	rspb "helm.sh/helm/v4/pkg/release/v1"
)

type request struct {
	ID          int64    `json:"id"`
	Release     string   `json:"release"`
	Chart       string   `json:"chart"`
	Namespace   string   `json:"namespace"`
	ValuesFiles []string `json:"valuesFiles"`
}

type response struct {
	ID       int64  `json:"id"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	ExitCode int    `json:"exitCode"`
}

// maxRequestBytes bounds one request line; a request names files, it does not carry them.
const maxRequestBytes = 1 << 20

func main() {
	// What Helm logs (a deprecated chart, a symbolic link in a chart) goes to the request's stderr,
	// as the helm CLI writes it without --debug (helm's internal/logging): info and above, no time.
	logs := &bytes.Buffer{}
	slog.SetDefault(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{
		Level: slog.LevelInfo,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})))

	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64*1024), maxRequestBytes)
	out := bufio.NewWriter(os.Stdout)
	encoder := json.NewEncoder(out)
	encoder.SetEscapeHTML(false)
	for in.Scan() {
		var req request
		var res response
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			res = response{ID: req.ID, Stderr: fmt.Sprintf("Error: kaddon-chart-renderer: a request that is not JSON: %v\n", err), ExitCode: 1}
		} else {
			logs.Reset()
			stdout := &bytes.Buffer{}
			err := render(req, stdout)
			res = response{ID: req.ID, Stdout: stdout.String()}
			if err != nil {
				logs.WriteString("Error: " + err.Error() + "\n")
				res.ExitCode = 1
			}
			res.Stderr = logs.String()
		}
		if err := encoder.Encode(res); err != nil {
			os.Exit(1)
		}
		if err := out.Flush(); err != nil {
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintf(os.Stderr, "kaddon-chart-renderer: %v\n", err)
		os.Exit(1)
	}
}

// render is `helm template RELEASE CHART --namespace NAMESPACE --values FILE...` (helm's
// pkg/cmd/template.go and runInstall in pkg/cmd/install.go, for a chart directory: no repository,
// no dependency download, no flags beyond these).
func render(req request, out io.Writer) error {
	settings := cli.New()
	settings.SetNamespace(req.Namespace)
	client := action.NewInstall(action.NewConfiguration())
	client.DryRunStrategy = action.DryRunClient
	client.ReleaseName = "release-name"
	client.Replace = true
	client.APIVersions = nil
	client.IncludeCRDs = false

	name, chartRef, err := client.NameAndChart([]string{req.Release, req.Chart})
	if err != nil {
		return err
	}
	client.ReleaseName = name
	chartPath, err := client.LocateChart(chartRef, settings)
	if err != nil {
		return err
	}
	valueOpts := &values.Options{ValueFiles: req.ValuesFiles}
	vals, err := valueOpts.MergeValues(getter.All(settings))
	if err != nil {
		return err
	}
	requested, err := loader.Load(chartPath)
	if err != nil {
		return err
	}
	accessor, err := chart.NewAccessor(requested)
	if err != nil {
		return err
	}
	if kind := accessor.MetadataAsMap()["Type"]; kind != "" && kind != "application" {
		return fmt.Errorf("%s charts are not installable", kind)
	}
	if accessor.Deprecated() {
		slog.Warn("this chart is deprecated")
	}
	if deps := accessor.MetaDependencies(); len(deps) > 0 {
		if err := action.CheckDependencies(requested, deps); err != nil {
			return fmt.Errorf("an error occurred while checking for chart dependencies. You may need to run 'helm dependency build' to fetch missing dependencies: %w", err)
		}
	}
	client.Namespace = settings.Namespace()

	releaser, err := client.RunWithContext(context.Background(), requested, vals)
	rel, convertErr := toRelease(releaser)
	if convertErr != nil {
		return convertErr
	}
	if err != nil {
		if rel != nil {
			return fmt.Errorf("%w\n\nUse --debug flag to render out invalid YAML", err)
		}
		return err
	}
	if rel == nil {
		return nil
	}
	var manifests bytes.Buffer
	fmt.Fprintln(&manifests, strings.TrimSpace(rel.Manifest))
	for _, hook := range rel.Hooks {
		fmt.Fprintf(&manifests, "---\n# Source: %s\n%s\n", hook.Path, hook.Manifest)
	}
	_, err = out.Write(manifests.Bytes())
	return err
}

func toRelease(releaser ri.Releaser) (*rspb.Release, error) {
	switch r := releaser.(type) {
	case rspb.Release:
		return &r, nil
	case *rspb.Release:
		return r, nil
	case nil:
		return nil, nil
	default:
		return nil, errors.New("unsupported release type")
	}
}
