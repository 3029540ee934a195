import { Notice } from './layout.tsx';

/** The only page shown before sign-in: a form for an API token, and nothing about what Kazma holds. */
export function signInView(notice?: { ok: boolean; message: string }) {
  return (
    <section class="signin">
      <h1>Sign in to Kazma</h1>
      <Notice notice={notice} />
      <form method="post" action="/ui/sign-in">
        <label for="token">Your API token (access.operators[].api_token, or the read-only http.api_token)</label>
        <input id="token" type="password" name="token" autocomplete="current-password" required maxlength={512} />
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
    </section>
  );
}
