// A shared worker that fetches the URL in its ?to= parameter.
fetch(new URL(location.href).searchParams.get("to"));
onconnect = () => {};
