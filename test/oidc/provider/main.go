// A real OpenID Connect provider for the status page's browser tests (test/oidc/oidc-provider.ts):
// zitadel/oidc's example provider and its in-memory storage, with what the tests need on top —
// users from a file, a `groups` claim in the ID token for the `groups` scope, one web client, and,
// when asked, ID tokens for another audience. Not for anything but tests: the keys are made up at
// each start and the users' passwords are in a file.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// groupsStorage adds each user's groups to the ID token when the `groups` scope was asked for.
type groupsStorage struct {
	*storage.Storage
	groups   map[string][]string
	audience string
}

func (s *groupsStorage) SetUserinfoFromRequest(ctx context.Context, info *oidc.UserInfo, request op.IDTokenRequest, scopes []string) error {
	if err := s.Storage.SetUserinfoFromRequest(ctx, info, request, scopes); err != nil {
		return err
	}
	for _, scope := range scopes {
		if scope == "groups" {
			info.AppendClaims("groups", s.groups[request.GetSubject()])
		}
	}
	return nil
}

// groupsClient is a registered client that may also ask for the `groups` scope, and, to make
// tokens for another audience, may go by another ID once signed in.
type groupsClient struct {
	op.Client
	id string
}

func (c groupsClient) IsScopeAllowed(scope string) bool {
	return scope == "groups" || c.Client.IsScopeAllowed(scope)
}

func (c groupsClient) GetID() string {
	if c.id != "" {
		return c.id
	}
	return c.Client.GetID()
}

func (s *groupsStorage) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	client, err := s.Storage.GetClientByClientID(ctx, id)
	if err != nil {
		return client, err
	}
	return groupsClient{client, s.audience}, nil
}

// otherAudience is an authorization request whose tokens name another client as their audience:
// the library always adds the request's client to the audience, so the client is renamed.
type otherAudience struct {
	op.AuthRequest
	audience string
}

func (r otherAudience) GetAudience() []string { return []string{r.audience} }
func (r otherAudience) GetClientID() string   { return r.audience }

func (s *groupsStorage) AuthRequestByCode(ctx context.Context, code string) (op.AuthRequest, error) {
	request, err := s.Storage.AuthRequestByCode(ctx, code)
	if err != nil || s.audience == "" {
		return request, err
	}
	return otherAudience{request, s.audience}, nil
}

// parseGroups reads `user=group1,group2;user2=group3`.
func parseGroups(text string) map[string][]string {
	groups := map[string][]string{}
	for _, entry := range strings.Split(text, ";") {
		user, list, found := strings.Cut(entry, "=")
		if found && user != "" {
			groups[user] = strings.Split(list, ",")
		}
	}
	return groups
}

func main() {
	listener, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	issuer := fmt.Sprintf("http://%s/", listener.Addr().String())
	storage.RegisterClients(
		storage.WebClient(os.Getenv("CLIENT_ID"), os.Getenv("CLIENT_SECRET"), strings.Split(os.Getenv("REDIRECT_URI"), ",")...),
	)
	users, err := storage.StoreFromFile(os.Getenv("USERS_FILE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	store := &groupsStorage{
		Storage:  storage.NewStorage(users),
		groups:   parseGroups(os.Getenv("GROUPS")),
		audience: os.Getenv("ID_TOKEN_AUDIENCE"),
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	router := exampleop.SetupServer(issuer, store, logger, false)
	logger.Warn("listening", "issuer", issuer)
	if err := http.Serve(listener, router); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
