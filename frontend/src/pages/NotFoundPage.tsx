/** Any path but "/" (Django serves the same template with status 404: config/views.py). */
export function NotFoundPage() {
  return (
    <main className="not-found">
      <div className="card">
        <h1>404 Page Not Found</h1>
        <p>Did you forget to add the page to the router?</p>
        <p>
          <a href="/">Back to Geopoem</a>
        </p>
      </div>
    </main>
  );
}
